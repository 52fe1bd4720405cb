/**
 * A create answers within 5 s whatever the journal does: with the PostgreSQL
 * journal frozen by SIGSTOP (every process of the server, connections left
 * open, as a frozen database host would), a create answers `503` with
 * `Retry-After` in under 5 s, and the service never hears of it: no order is
 * created without a recorded intent. Once the database runs again, the
 * shopper's retry with the same key gets the one order.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createSandbox, SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { type CheckoutRelayEvent, createCheckoutRelay, openJournal } from '../../src/server/node.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { CLIENT, createRequest, intent, LOOKUP_SECRET, priceCart } from '../fixtures/relay.js';

describe('a frozen journal', { skip: postgresSkipReason() }, () => {
  it('a create answers 503 within 5 s, the service not called; the retry after it thaws gets one order', {
    timeout: 120_000,
  }, async () => {
    const cluster = await startPostgres();
    let paused = false;
    after(() => {
      if (paused) cluster.thaw();
      cluster.stop();
    });
    const journal = await openJournal(await cluster.createDatabase());
    const sandbox = createSandbox({ approveAfterMs: 3_600_000 });
    const creates: string[] = [];
    const events: CheckoutRelayEvent[] = [];
    const relay = createCheckoutRelay({
      secretKey: SANDBOX_KEYS.secret,
      baseUrl: 'http://sandbox.invalid',
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (request.url.endsWith('/orders/new')) creates.push(request.url);
        return sandbox.handle(request);
      },
      lookupSecret: LOOKUP_SECRET,
      priceCart,
      rateLimit: false,
      onEvent: (event) => {
        events.push(event);
      },
      journal,
      onPaid: () => undefined,
      watch: { ticks: false },
    });
    after(() => relay.close());
    assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 200, 'a create while it runs');
    const before = sandbox.createdOrderCount;
    const callsBefore = creates.length;

    cluster.freeze();
    paused = true;
    const key = crypto.randomUUID();
    const started = performance.now();
    const frozen = await relay.create(createRequest(intent(), { key }), CLIENT);
    const tookMs = performance.now() - started;
    assert.equal(frozen.status, 503, await frozen.clone().text());
    assert.ok(tookMs < 5_000, `answered in ${Math.round(tookMs)} ms`);
    assert.ok(Number(frozen.headers.get('retry-after')) > 0);
    assert.equal(creates.length, callsBefore, 'the service was not called without a recorded intent');
    assert.ok(events.some((event) => event.type === 'journal_unavailable'));

    cluster.thaw();
    paused = false;
    const retried = await relay.create(createRequest(intent(), { key }), CLIENT);
    assert.equal(retried.status, 200);
    assert.equal(sandbox.createdOrderCount - before, 1, 'one order for the attempt');
  });
});
