/**
 * Checkouts and their client secrets, probed as an attacker would, through
 * the merchant API and the relay's browser routes together: each credential
 * works only where it belongs (a client secret or a lookup token is never
 * the API key, the API key and a checkout id are never a client secret);
 * guessed client secrets are `404` and then `429`; a checkout bound to one
 * shop origin is `404` from another's page; a paying create re-sent answers
 * the same order, and a new attempt on the paid checkout is
 * `409 checkout_paid`. Real relay, real SQLite file, the sandbox and the API
 * over loopback HTTP.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_KEY, merchantApiStack, SHOP_ORIGIN } from '../../fixtures/merchant-api.js';

const OTHER_ORIGIN = 'https://other-shop.example';

/** A checkout body of one tote for `reference`, bound to `origin` when given. */
function oneTote(reference: string, origin?: string) {
  return {
    line_items: [{ name: 'Kente tote', quantity: 1, unit_price: { currency: 'ghs', value: 12_500 } }],
    reference,
    ...(origin === undefined ? {} : { origin }),
  };
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

/** The relay's answer to each browser route that takes a client secret, for `secret` from `origin`. */
function everyPageRoute(
  stack: Awaited<ReturnType<typeof merchantApiStack>>,
  secret: string,
  origin?: string,
) {
  return {
    create: () => stack.payCheckout(secret, origin === undefined ? {} : { origin }),
    price: () => stack.fromPage('/price', { body: { checkout: secret }, ...(origin ? { origin } : {}) }),
    read: () => stack.fromPage(`/checkouts/${encodeURIComponent(secret)}`, origin ? { origin } : {}),
  };
}

describe('credentials of the merchant API and of checkouts', () => {
  it('never take one for another', async () => {
    const stack = await merchantApiStack({}, { failedAuthLimit: false });
    const created = await stack.v1('/v1/checkouts', { body: oneTote('order-601', SHOP_ORIGIN) });
    const { id, client_secret } = created.body;
    const paying = await stack.shopperPaysCheckout(client_secret, SHOP_ORIGIN);

    // A client secret, a lookup token or a checkout id is not the API key.
    for (const credential of [client_secret, paying.lookup_token, id, `${id}_secret_`]) {
      for (const path of [
        `/v1/checkouts/${id}`,
        `/v1/orders/${paying.order.id}`,
        '/v1/orders?reference=order-601',
      ]) {
        const answer = await stack.v1(path, { key: credential });
        assert.equal(answer.status, 401, `${path} with ${credential.slice(0, 6)}…`);
        assert.equal(answer.body.error.code, 'invalid_api_key');
      }
    }
    // The API key, a lookup token, the checkout id are not a client secret, on any browser route.
    for (const credential of [API_KEY, paying.lookup_token, id, `${id}_secret_${paying.lookup_token}`]) {
      for (const [route, send] of Object.entries(everyPageRoute(stack, credential, SHOP_ORIGIN))) {
        const answer = await send();
        assert.equal(answer.status, 404, `${route} with ${credential.slice(0, 6)}…`);
        assert.equal(await codeOf(answer), 'checkout_not_found', route);
      }
    }
    // The client secret itself opens it.
    const read = await everyPageRoute(stack, client_secret, SHOP_ORIGIN).read();
    assert.equal(read.status, 200);
  });

  it('answers guessed client secrets 404, then 429 for that address, on every browser route', async () => {
    const stack = await merchantApiStack({
      rateLimit: { lookup: { capacity: 4, refillPerMinute: 1 }, create: false, price: false },
    });
    const created = await stack.v1('/v1/checkouts', { body: oneTote('order-602') });
    const { id, client_secret } = created.body;
    const guesses = [
      `${id}_secret_${'A'.repeat(43)}`,
      `${id}_secret_${client_secret.slice(-43, -1)}B`,
      `cs_${'Z'.repeat(24)}_secret_${client_secret.slice(-43)}`,
      client_secret.toLowerCase(),
      `${client_secret}A`,
      client_secret.slice(0, -1),
    ];
    const statuses: number[] = [];
    for (const [index, guess] of guesses.entries()) {
      const routes = everyPageRoute(stack, guess);
      const send = [routes.create, routes.price, routes.read][index % 3] as () => Promise<Response>;
      const answer = await send();
      statuses.push(answer.status);
      const code = await codeOf(answer);
      assert.equal(code, answer.status === 404 ? 'checkout_not_found' : 'rate_limited', guess);
    }
    assert.deepEqual(statuses, [404, 404, 404, 404, 429, 429]);
  });

  it('answers 404 to a checkout bound to one shop’s origin used from another shop’s page', async () => {
    const origins = [SHOP_ORIGIN, OTHER_ORIGIN];
    const stack = await merchantApiStack({ allowedOrigins: origins }, { allowedOrigins: origins });
    const created = await stack.v1('/v1/checkouts', { body: oneTote('order-603', SHOP_ORIGIN) });
    const { client_secret } = created.body;
    for (const [route, send] of Object.entries(everyPageRoute(stack, client_secret, OTHER_ORIGIN))) {
      const answer = await send();
      assert.equal(answer.status, 404, `${route} from ${OTHER_ORIGIN}`);
      assert.equal(await codeOf(answer), 'checkout_not_found');
    }
    for (const [route, send] of Object.entries(everyPageRoute(stack, client_secret, SHOP_ORIGIN))) {
      assert.equal((await send()).status, 200, `${route} from ${SHOP_ORIGIN}`);
    }
  });

  it('answers a re-sent paying create with its order, and a new attempt on the paid checkout 409 checkout_paid', async () => {
    const stack = await merchantApiStack();
    const created = await stack.v1('/v1/checkouts', { body: oneTote('order-604') });
    const { client_secret } = created.body;
    const key = crypto.randomUUID();
    const first = await stack.payCheckout(client_secret, { key });
    assert.equal(first.status, 200);
    const orderId = ((await first.json()) as { order: { id: string } }).order.id;
    await stack.payerAnswers(orderId, 'approve');
    await stack.watcherPass();

    const replay = await stack.payCheckout(client_secret, { key });
    assert.equal(replay.status, 200, 'the shopper’s own paid order is never refused');
    assert.equal(((await replay.json()) as { order: { id: string } }).order.id, orderId);
    for (const number of ['0241150001', '0241150009']) {
      const again = await stack.payCheckout(client_secret, { number });
      assert.equal(again.status, 409, number);
      assert.equal(await codeOf(again), 'checkout_paid');
    }
    const orders = await stack.v1('/v1/orders?reference=order-604');
    assert.deepEqual(
      orders.body.data.map((order: { id: string }) => order.id),
      [orderId],
      'one order, paid once',
    );
  });
});
