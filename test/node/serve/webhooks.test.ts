/**
 * serve's configured webhooks, end to end on a real SQLite journal and a
 * real receiver on 127.0.0.1: each endpoint gets only the events it names;
 * during a rotation (`"secretEnv": "OLD,NEW"`) every request carries a
 * signature by each secret, so a receiver holding either verifies it; the
 * body holds the order as the merchant API answers it and the customer; and
 * without `allowPrivateWebhookTargets` serve refuses to start with a loopback
 * endpoint, naming it (a name that resolves to one is refused at each attempt
 * by the sender).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, describe, it } from 'node:test';
import { verifyWebhook } from '../../../src/server/webhooks/verify-webhook.js';
import {
  payThroughServe,
  postJson,
  startTestServe,
  TEST_API_KEY,
  TEST_CATALOGUE,
  TEST_LOOKUP_SECRET,
} from '../../fixtures/serve.js';
import { eventually } from '../../fixtures/wait.js';

const OLD = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const ENV = {
  PAY_CHECKOUT_API_KEY: TEST_API_KEY,
  PAY_LOOKUP_SECRET: TEST_LOOKUP_SECRET,
  SHOP_WEBHOOK_SECRET: OLD,
  SHOP_WEBHOOK_SECRET_NEXT: NEW,
};

/** One request as the receiver got it. */
interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A receiver on 127.0.0.1 answering 204 to everything, keeping each request. */
async function startReceiver() {
  const got: Delivery[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    got.push({ headers: request.headers, body: Buffer.concat(chunks) });
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('serve’s webhooks', { timeout: 60_000 }, () => {
  const closing: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closing.reverse()) await close();
  });

  it('sends each endpoint its events, signed by every secret of a rotation, with the order and customer', async () => {
    const receiver = await startReceiver();
    closing.push(receiver.close);
    const running = await startTestServe(
      {
        catalogue: TEST_CATALOGUE,
        allowPrivateWebhookTargets: true,
        webhooks: [
          {
            url: receiver.url('/paid'),
            secretEnv: 'SHOP_WEBHOOK_SECRET, SHOP_WEBHOOK_SECRET_NEXT',
            events: ['order.paid'],
          },
          { url: receiver.url('/failed'), secretEnv: 'SHOP_WEBHOOK_SECRET', events: ['order.failed'] },
        ],
      },
      { env: ENV },
    );
    closing.push(running.close);
    const { url } = running.serve;
    const paid = await payThroughServe(url, '0241234567', undefined, 'Kofi Boateng');
    const created = await postJson(`${url}/checkout/orders`, {
      customer_data: { name: 'Kofi Boateng', phone_number: '+233241234568' },
      payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '0241234568' } },
      cart: { items: [{ sku: 'kente-tote', quantity: 1 }] },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const declinedId = (created.body?.order as { id: string } | undefined)?.id as string;
    const declined = await postJson(`${url}/sandbox/_sandbox/payments/decline`, { order_id: declinedId });
    assert.equal(declined.status, 200);
    await eventually('both events delivered', () => receiver.got.length === 2, { timeoutMs: 30_000 });

    const byPath = new Map(
      receiver.got.map((delivery) => [String(delivery.headers['webhook-id']), delivery]),
    );
    const events = await running.serve.relay.webhooks.list();
    const endpointsOf = (type: string) =>
      events
        .filter((event) => event.type === type)
        .flatMap((event) => event.deliveries.map((d) => d.endpoint));
    assert.deepEqual(endpointsOf('order.paid'), [receiver.url('/paid')]);
    assert.deepEqual(endpointsOf('order.failed'), [receiver.url('/failed')]);

    const paidEvent = events.find((event) => event.type === 'order.paid');
    const delivery = byPath.get(paidEvent?.id as string) as Delivery;
    const signatures = String(delivery.headers['webhook-signature']).split(' ');
    assert.equal(signatures.length, 2, 'one signature per secret of the rotation');
    for (const secret of [OLD, NEW]) {
      const event = await verifyWebhook<Record<string, unknown>>(secret, delivery.headers, delivery.body);
      assert.equal(event.type, 'order.paid');
      assert.equal(event.data.id, paid.orderId);
      assert.equal(event.data.outcome, 'paid');
      assert.deepEqual(event.data.customer, { name: 'Kofi Boateng', phone_number: '+233241234567' });
    }
    const failedEvent = events.find((event) => event.type === 'order.failed');
    const failed = byPath.get(failedEvent?.id as string) as Delivery;
    assert.equal(String(failed.headers['webhook-signature']).split(' ').length, 1);
    const verified = await verifyWebhook(OLD, failed.headers, failed.body);
    assert.equal((verified.data as { id: string }).id, declinedId);
    // Neither the secrets nor the customer reach serve's log.
    for (const secret of [OLD, NEW, 'Kofi Boateng', '241234567']) {
      assert.ok(!running.logText().includes(secret), secret);
    }
    // The operator's line names the event and where it went.
    const deliveredLine = running
      .logText()
      .split('\n')
      .find((line) => line.includes('"event":"webhook_delivered"') && line.includes(paidEvent?.id as string));
    assert.ok(deliveredLine?.includes(`"endpoint":"${receiver.url('/paid')}"`), deliveredLine);
  });

  it('refuses to start with a loopback endpoint without allowPrivateWebhookTargets, naming the field', async () => {
    const receiver = await startReceiver();
    closing.push(receiver.close);
    await assert.rejects(
      startTestServe(
        { webhooks: [{ url: receiver.url('/hook'), secretEnv: 'SHOP_WEBHOOK_SECRET' }] },
        { env: ENV },
      ),
      (error: Error & { errors?: string[] }) => {
        assert.deepEqual(error.errors, [
          'webhooks[0].url: 127.0.0.1 is a loopback address, refused unless "allowPrivateWebhookTargets": true (for development only)',
        ]);
        return true;
      },
    );
    assert.deepEqual(receiver.got, []);
  });
});
