/**
 * The merchant API's key, probed as an attacker would: no key, a wrong one,
 * one character short or long, lower-cased, another credential of the relay's
 * (a lookup token) are all the same `401` on every route, with
 * `WWW-Authenticate: Bearer`; a client address that keeps guessing is
 * refused (`429`) even when it then sends the right key, while other
 * addresses are not; and the compare is constant-time by construction: the
 * two values compared are HMAC digests of one length whatever was sent.
 * Timings are never measured.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApiKeyCheck } from '../../../src/server/merchant-api/api-key.js';
import { createMerchantApi } from '../../../src/server/merchant-api/merchant-api.js';
import { timingSafeCompare } from '../../../src/server/tokens/timing-safe-compare.js';
import { API_KEY, type ApiAnswer, merchantApiStack } from '../../fixtures/merchant-api.js';

/** A request to every route, and to one that is not: the key is checked before the route. */
const ROUTES: { path: string; method: string; body?: unknown }[] = [
  { path: '/v1/checkouts', method: 'POST', body: { line_items: [], reference: 'cart-1' } },
  { path: '/v1/checkouts/cs_AAAAAAAAAAAAAAAAAAAAAAAA', method: 'GET' },
  { path: '/v1/orders/or_abc123', method: 'GET' },
  { path: '/v1/orders?reference=cart-1', method: 'GET' },
  { path: '/v1/no-such-route', method: 'GET' },
  { path: '/v1/checkouts', method: 'DELETE' },
];

/** Wrong keys that look like the right one, and other ways of sending one. */
const WRONG_KEYS: { name: string; authorization?: string }[] = [
  { name: 'no header' },
  { name: 'an empty bearer', authorization: 'Bearer ' },
  { name: 'another key', authorization: `Bearer mk_test_${'z'.repeat(35)}` },
  { name: 'one character short', authorization: `Bearer ${API_KEY.slice(0, -1)}` },
  { name: 'one character long', authorization: `Bearer ${API_KEY}x` },
  { name: 'the last character changed', authorization: `Bearer ${API_KEY.slice(0, -1)}f` },
  { name: 'lower-cased', authorization: `Bearer ${API_KEY.toLowerCase()}` },
  { name: 'as Basic', authorization: `Basic ${btoa(`${API_KEY}:`)}` },
  { name: 'without a scheme', authorization: API_KEY },
  { name: 'a prefix of it', authorization: `Bearer ${API_KEY.slice(0, 8)}` },
  { name: 'very long', authorization: `Bearer ${API_KEY}${'a'.repeat(4000)}` },
];

function assertInvalidKey(answer: ApiAnswer, what: string): void {
  assert.equal(answer.status, 401, what);
  assert.equal(answer.headers.get('www-authenticate'), 'Bearer', what);
  assert.equal(answer.body.error.code, 'invalid_api_key', what);
  assert.equal(answer.body.error.type, 'authentication_error', what);
  assert.equal(answer.headers.get('access-control-allow-origin'), null, what);
  assert.ok(!JSON.stringify(answer.body).includes(API_KEY.slice(8)), `${what}: the key is not quoted`);
}

describe('the merchant API key', () => {
  it('answers 401 to every wrong key on every route, and the right key gets past', async () => {
    const stack = await merchantApiStack({}, { failedAuthLimit: false });
    for (const route of ROUTES) {
      for (const wrong of WRONG_KEYS) {
        const headers: Record<string, string> =
          wrong.authorization === undefined ? {} : { authorization: wrong.authorization };
        const answer = await stack.v1(route.path, {
          key: null,
          method: route.method,
          body: route.body,
          headers,
        });
        assertInvalidKey(answer, `${route.method} ${route.path} with ${wrong.name}`);
      }
      const right = await stack.v1(route.path, { method: route.method, body: route.body });
      assert.notEqual(right.status, 401, `${route.method} ${route.path} with the key`);
    }
    // The scheme is case-insensitive (RFC 9110); the key is not.
    const lowerScheme = await stack.v1('/v1/orders?reference=cart-1', {
      key: null,
      headers: { authorization: `bearer ${API_KEY}` },
    });
    assert.equal(lowerScheme.status, 200);
  });

  it('never takes a lookup token of the relay as the key', async () => {
    const stack = await merchantApiStack({}, { failedAuthLimit: false });
    const { order, lookup_token } = await stack.shopperPays('cart-201');
    for (const credential of [lookup_token, order.id, `${order.id}:${lookup_token}`]) {
      assertInvalidKey(await stack.v1(`/v1/orders/${order.id}`, { key: credential }), 'a lookup credential');
    }
    assert.equal((await stack.v1(`/v1/orders/${order.id}`)).status, 200);
  });

  it('with no key set, answers every request 401 saying so', async () => {
    const stack = await merchantApiStack({}, { apiKey: undefined });
    for (const route of ROUTES) {
      const answer = await stack.v1(route.path, { method: route.method, body: route.body });
      assertInvalidKey(answer, `${route.method} ${route.path}`);
      assert.match(answer.body.error.message, /no API key set.*PAY_CHECKOUT_API_KEY/);
    }
  });

  it('refuses a key shorter than 32 characters when it is made', () => {
    const orders = { get: async () => null, byReference: async () => [] };
    const checkouts = { create: () => Promise.reject(new Error('unused')), get: async () => undefined };
    for (const apiKey of ['', 'short', 'x'.repeat(31), `${'x'.repeat(31)} `, 42]) {
      assert.throws(
        () => createMerchantApi({ checkouts, orders, apiKey: apiKey as string }),
        (error: unknown) => error instanceof TypeError && /at least 32/.test(error.message),
      );
    }
    assert.doesNotThrow(() => createMerchantApi({ checkouts, orders, apiKey: 'x'.repeat(32) }));
  });
});

describe('guessing the merchant API key', () => {
  it('refuses an address that keeps guessing, the right key too, until its bucket refills; other addresses go on', async () => {
    const stack = await merchantApiStack(
      {},
      { failedAuthLimit: { capacity: 3, refillPerMinute: 6 }, trustProxy: 1 },
    );
    const from = (address: string, key: string | null) =>
      stack.v1('/v1/orders?reference=cart-1', { key, headers: { 'x-forwarded-for': address } });
    const guesser = '203.0.113.50';
    const statuses: number[] = [];
    for (let guess = 0; guess < 5; guess++) statuses.push((await from(guesser, `guess-${guess}`)).status);
    assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    const refused = await from(guesser, API_KEY);
    assert.equal(refused.status, 429, 'the right key from a refused address is refused too');
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.equal(refused.headers.get('retry-after'), '10');
    // Sending no key at all is no guess: it is answered 401 and counts nothing.
    const neighbour = '203.0.113.51';
    for (let request = 0; request < 5; request++) assert.equal((await from(neighbour, null)).status, 401);
    assert.equal((await from(neighbour, API_KEY)).status, 200, 'another address is not refused');

    stack.clock.now += 10_000;
    assert.equal((await from(guesser, API_KEY)).status, 200, 'one token back after 10 s');
    assert.equal((await from(guesser, 'guess-again')).status, 401);
    assert.equal((await from(guesser, 'and-again')).status, 429);
  });
});

describe('the key compare', () => {
  it('compares two digests of one length, whatever was sent', async () => {
    const compared: [number, number][] = [];
    const check = createApiKeyCheck(API_KEY, (a, b) => {
      compared.push([a.byteLength, b.byteLength]);
      return a.byteLength === b.byteLength && a.every((byte, index) => byte === b[index]);
    });
    const presented = [
      '',
      'a',
      API_KEY.slice(0, -1),
      API_KEY,
      `${API_KEY}x`,
      'é'.repeat(100),
      'k'.repeat(100_000),
    ];
    const verdicts = [];
    for (const key of presented) verdicts.push(await check(key));
    assert.deepEqual(verdicts, [false, false, false, true, false, false, false]);
    assert.deepEqual(
      compared,
      presented.map(() => [32, 32]),
    );
  });

  it('compares with timingSafeEqual by default', async () => {
    const check = createApiKeyCheck(API_KEY);
    assert.equal(await check(API_KEY), true);
    assert.equal(await check(API_KEY.toUpperCase()), false);
    assert.equal(await check(''), false);
    // node:crypto's timingSafeEqual refuses arrays of two lengths rather than answer early.
    assert.throws(() => timingSafeCompare()(new Uint8Array(1), new Uint8Array(2)), RangeError);
  });
});
