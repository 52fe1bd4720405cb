/**
 * Every refusal of the relay reaches the merchant's `onEvent` exactly once,
 * as the event that says most about it: the route that answers a throw is
 * the one place that reports it. Each case sends one refused request to a
 * relay in front of an in-process sandbox and counts the refusal events.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CheckoutRelayEvent, createLookupTokens, openJournal } from '../../../src/server/index.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import {
  CLIENT,
  createRequest,
  intent,
  LOOKUP_SECRET,
  lookupRequest,
  relayStack,
} from '../../fixtures/relay.js';

/** The events that report a refused request. */
const REFUSALS = new Set<CheckoutRelayEvent['type']>([
  'request_rejected',
  'lookup_denied',
  'rate_limited',
  'upstream_error',
  'price_cart_failed',
  'journal_unavailable',
  'internal_error',
]);

const { sandbox, events, relayWith } = relayStack();

/** Runs `send` (one refused request, after any set-up requests) and returns the refusals it reported. */
async function refusalsOf(
  send: () => Response | Promise<Response>,
  status: number,
): Promise<CheckoutRelayEvent[]> {
  events.length = 0;
  const answer = await send();
  assert.equal(answer.status, status);
  return events.filter((event) => REFUSALS.has(event.type));
}

/** Asserts `reported` is one event of type `type`, and returns it. */
function once(reported: CheckoutRelayEvent[], type: CheckoutRelayEvent['type']): CheckoutRelayEvent {
  assert.deepEqual(
    reported.map((event) => event.type),
    [type],
  );
  return reported[0] as CheckoutRelayEvent;
}

describe('the relay reports each refusal to onEvent once', () => {
  it('a malformed request: request_rejected', async () => {
    const relay = relayWith();
    const reported = await refusalsOf(
      () => relay.create(createRequest(intent(), { key: null }), CLIENT),
      400,
    );
    const event = once(reported, 'request_rejected');
    assert.ok(event.type === 'request_rejected' && event.route === 'create' && event.status === 400);
  });

  it('a method other than POST, and a path of no route: request_rejected', async () => {
    const relay = relayWith();
    const get = new Request('https://shop.example/api/checkout/orders', { method: 'GET' });
    once(await refusalsOf(() => relay.create(get, CLIENT), 405), 'request_rejected');
    const nowhere = new Request('https://shop.example/api/checkout/elsewhere', { method: 'POST' });
    const event = once(await refusalsOf(() => relay.handle(nowhere, CLIENT), 404), 'request_rejected');
    assert.ok(event.type === 'request_rejected' && event.route === 'unknown');
  });

  it('a cart priceCart refused: request_rejected', async () => {
    const relay = relayWith();
    const empty = intent({ cart: { items: [] } });
    const event = once(
      await refusalsOf(() => relay.create(createRequest(empty), CLIENT), 400),
      'request_rejected',
    );
    assert.ok(event.type === 'request_rejected' && event.param === 'cart');
  });

  it('a lookup with a token of another order: lookup_denied', async () => {
    const relay = relayWith();
    const token = await createLookupTokens(LOOKUP_SECRET).sign('or_other');
    const request = lookupRequest({ order_id: 'or_abc', lookup_token: token });
    const event = once(await refusalsOf(() => relay.lookup(request, CLIENT), 403), 'lookup_denied');
    assert.ok(event.type === 'lookup_denied' && event.reason === 'token_mismatch');
  });

  it('a client out of tokens, and a number out of prompts: rate_limited', async () => {
    const relay = relayWith({
      rateLimit: {
        create: { capacity: 1, refillPerMinute: 1 },
        promptsPerNumber: { limit: 1, windowMinutes: 10 },
      },
    });
    assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 200);
    const client = once(
      await refusalsOf(() => relay.create(createRequest(intent()), CLIENT), 429),
      'rate_limited',
    );
    assert.ok(client.type === 'rate_limited' && client.clientKey === CLIENT.clientAddress);
    const stranger = intent(customerPayingFrom('0209876541'));
    const first = await relay.create(createRequest(stranger), { clientAddress: '198.51.100.8' });
    assert.equal(first.status, 200);
    const prompt = once(
      await refusalsOf(() => relay.create(createRequest(stranger), { clientAddress: '198.51.100.9' }), 429),
      'rate_limited',
    );
    assert.ok(prompt.type === 'rate_limited' && prompt.clientKey.startsWith('prompt:'));
  });

  it('a service that refuses the relay, on both routes: upstream_error', async () => {
    const revoked = 'sk_test_revoked_refusals_key';
    sandbox.keys.add({ key: revoked });
    sandbox.keys.revoke(revoked);
    const relay = relayWith({ secretKey: revoked });
    const create = once(
      await refusalsOf(() => relay.create(createRequest(intent()), CLIENT), 502),
      'upstream_error',
    );
    assert.ok(create.type === 'upstream_error' && create.route === 'create' && create.answeredStatus === 502);
    const token = await createLookupTokens(LOOKUP_SECRET).sign('or_abc');
    const request = lookupRequest({ order_id: 'or_abc', lookup_token: token });
    const lookup = once(await refusalsOf(() => relay.lookup(request, CLIENT), 502), 'upstream_error');
    assert.ok(lookup.type === 'upstream_error' && lookup.route === 'lookup');
  });

  it('a priceCart that throws, or returns no line items: price_cart_failed', async () => {
    const throwing = relayWith({
      priceCart: () => {
        throw new Error('catalogue offline');
      },
    });
    once(await refusalsOf(() => throwing.create(createRequest(intent()), CLIENT), 500), 'price_cart_failed');
    const empty = relayWith({ priceCart: () => [] });
    once(await refusalsOf(() => empty.create(createRequest(intent()), CLIENT), 500), 'price_cart_failed');
  });

  it('a journal that cannot record the create: journal_unavailable', async () => {
    const journal = await openJournal('memory:');
    const relay = relayWith({ journal, onPaid: () => undefined, watch: { ticks: false } });
    await journal.close();
    once(await refusalsOf(() => relay.create(createRequest(intent()), CLIENT), 500), 'journal_unavailable');
    await relay.close();
  });

  it('a failure inside the relay: internal_error', async () => {
    const relay = relayWith({
      rateLimit: {
        clientAddress: () => {
          throw new Error('the platform header reader broke');
        },
      },
    });
    const event = once(
      await refusalsOf(() => relay.create(createRequest(intent()), CLIENT), 500),
      'internal_error',
    );
    assert.ok(event.type === 'internal_error' && event.route === 'create');
  });
});
