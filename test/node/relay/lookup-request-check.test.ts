/**
 * The relay checks a lookup request without parsing `lookupRequestSchema`
 * (its checks are written out for speed); the shopper's element must see
 * exactly what the schema says: the same `400` and message for a bad
 * order id, and a refusal for a token the schema would not take.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lookupRequestSchema } from '../../../src/shared/wire.js';
import { CLIENT, errorOf, lookupRequest, relayStack } from '../../fixtures/relay.js';

const ORDER = 'or_abcDEF012_-';
const GOOD_TOKEN = 'x'.repeat(43);

const bodies: Record<string, unknown>[] = [
  {},
  { lookup_token: GOOD_TOKEN },
  { order_id: null, lookup_token: GOOD_TOKEN },
  { order_id: 42, lookup_token: GOOD_TOKEN },
  { order_id: ['or_a'], lookup_token: GOOD_TOKEN },
  { order_id: '', lookup_token: GOOD_TOKEN },
  { order_id: 'or_', lookup_token: GOOD_TOKEN },
  { order_id: 'or_a b', lookup_token: GOOD_TOKEN },
  { order_id: `or_${'a'.repeat(65)}`, lookup_token: GOOD_TOKEN },
  { order_id: `or_${'a'.repeat(64)}`, lookup_token: GOOD_TOKEN },
  { order_id: 'OR_abc', lookup_token: GOOD_TOKEN },
  { order_id: 'or_abc\n', lookup_token: GOOD_TOKEN },
  { order_id: 42 },
  { order_id: ORDER },
  { order_id: ORDER, lookup_token: null },
  { order_id: ORDER, lookup_token: 7 },
  { order_id: ORDER, lookup_token: '' },
  { order_id: ORDER, lookup_token: 'a' },
  { order_id: ORDER, lookup_token: 'a'.repeat(256) },
  { order_id: ORDER, lookup_token: 'a'.repeat(257) },
  { order_id: ORDER, lookup_token: '\u{1F600}'.repeat(128) },
  { order_id: ORDER, lookup_token: '\u{1F600}'.repeat(129) },
  { order_id: ORDER, lookup_token: '\u{1F600}'.repeat(256) },
  { order_id: ORDER, lookup_token: '\u{1F600}'.repeat(257) },
  { order_id: ORDER, lookup_token: `${'\u{1F600}'.repeat(255)}\uD800` },
  { order_id: ORDER, lookup_token: `${'\u{1F600}'.repeat(255)}\uDC00\uD800` },
  { order_id: ORDER, lookup_token: `\uDC00${'a'.repeat(256)}` },
  { order_id: ORDER, lookup_token: GOOD_TOKEN, extra: true },
];

/** What the schema makes of `body`: the order id's first problem, or whether the token would be taken. */
function schemaVerdict(body: Record<string, unknown>) {
  const parsed = lookupRequestSchema.safeParse(body);
  const orderIssue = parsed.success
    ? undefined
    : parsed.error.issues.find((issue) => issue.path[0] === 'order_id');
  if (orderIssue) return { status: 400, message: orderIssue.message, param: 'order_id' };
  return { status: 403, reason: parsed.success ? 'token_mismatch' : 'missing_token' };
}

describe('the lookup request check', () => {
  const { events, relayWith } = relayStack();

  it('answers every body as lookupRequestSchema reads it', async () => {
    const relay = relayWith();
    for (const body of bodies) {
      events.length = 0;
      const expected = schemaVerdict(body);
      const response = await relay.lookup(lookupRequest(body), CLIENT);
      const label = JSON.stringify(body).slice(0, 80);
      assert.equal(response.status, expected.status, label);
      const error = await errorOf(response);
      if (expected.status === 400) {
        assert.equal(error.message, expected.message, label);
        assert.equal(error.param, expected.param, label);
      } else {
        const denied = events.find((event) => event.type === 'lookup_denied');
        assert.equal(denied && 'reason' in denied ? denied.reason : undefined, expected.reason, label);
      }
    }
  });
});
