/**
 * A relay whose `close()` began, as a server that goes on serving while it
 * shuts down reaches it: creates and lookups get a clear `503` in the error
 * shape with `Retry-After` (the element retries it; another process, or the
 * restarted one, answers), never a `500` from a closed journal. Without a
 * journal `close()` has nothing to close and the relay answers as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fulfilmentStack } from '../../fixtures/fulfilment.js';
import { createRequest, errorOf, intent, lookupRequest, relayStack } from '../../fixtures/relay.js';

const CLIENT = { clientAddress: '198.51.100.7' };

describe('a relay after close()', () => {
  it('answers creates and lookups 503 with Retry-After, once its journal is closing', async () => {
    const stack = await fulfilmentStack('sqlite:');
    const { orderId, lookupToken } = await stack.checkout();
    await stack.relay.close();
    stack.events.length = 0;

    const created = await stack.relay.create(createRequest(intent()), CLIENT);
    assert.equal(created.status, 503);
    assert.equal(created.headers.get('retry-after'), '2');
    const error = await errorOf(created);
    assert.equal(error.code, 'service_unavailable');
    assert.match(error.message, /try again/i);

    const request = lookupRequest({ order_id: orderId, lookup_token: lookupToken });
    const looked = await stack.relay.lookup(request, CLIENT);
    assert.equal(looked.status, 503);
    assert.equal(looked.headers.get('retry-after'), '2');
    await looked.arrayBuffer();

    const answered = await stack.relay.handle(createRequest(intent()), CLIENT);
    assert.equal(answered.status, 503, 'routed by path too');
    await answered.arrayBuffer();
    assert.deepEqual(
      stack.events.map((event) => event.type === 'request_rejected' && event.status),
      [503, 503, 503],
      'each reported to onEvent',
    );
    assert.equal(
      stack.events.some((event) => event.type === 'journal_unavailable'),
      false,
      'the closed journal was never asked',
    );
  });

  it('without a journal has nothing to close, and answers as before', async () => {
    const { relayWith } = relayStack();
    const relay = relayWith();
    await relay.close();
    const created = await relay.create(createRequest(intent()), CLIENT);
    assert.equal(created.status, 200);
    await created.arrayBuffer();
  });
});
