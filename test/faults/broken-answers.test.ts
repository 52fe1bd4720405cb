/**
 * A service that answers `200` with a body the relay cannot read (broken
 * JSON, an HTML page from a proxy in front of it) is as good as down: the
 * watcher pauses and probes, as after a `5xx`, instead of asking again for
 * every order it watches. A real HTTP server stands in for the service: the
 * sandbox while the orders are created, then garbage. The relay's clock and
 * its passes are moved by hand over 15 s, and the server counts the calls.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createSandbox, listen, SANDBOX_KEYS, toNodeListener } from '../../src/sandbox/index.js';
import { WATCH_BATCH_SIZE } from '../../src/server/fulfilment/order-watcher.js';
import { type CheckoutRelayEvent, createCheckoutRelay, openJournal } from '../../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../../src/shared/service-contract.js';
import { CLIENT, createRequest, intent, LOOKUP_SECRET, priceCart } from '../fixtures/relay.js';
import { clockReading } from '../fixtures/relay-clock.js';

/** Three full batches of the watcher: without a pause it would look every one of them up. */
const ORDERS = WATCH_BATCH_SIZE * 3;
const RUN_MS = 15_000;
const STEP_MS = 250;

const GARBAGE = [
  () =>
    new Response('{"order": {"id": "or_', { status: 200, headers: { 'content-type': 'application/json' } }),
  () =>
    new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', {
      status: 200,
      headers: { 'content-type': 'text/html' },
    }),
];

describe('a service answering 200 with a body nobody can read', () => {
  for (const [index, garbage] of GARBAGE.entries()) {
    const kind = index === 0 ? 'broken JSON' : 'an HTML page';
    it(`with ${kind}, the watcher backs off as after a 5xx: a few calls in 15 s for ${ORDERS} orders`, {
      timeout: 60_000,
    }, async (t) => {
      const sandbox = createSandbox({ approveAfterMs: 3_600_000 });
      const service = { broken: false, calls: 0 };
      const served = await listen(
        toNodeListener(
          async (request) => {
            if (!service.broken) return sandbox.handle(request);
            service.calls += 1;
            return garbage();
          },
          { maxBodyBytes: SERVICE_MAX_BODY_BYTES },
        ),
      );
      after(() => served.close());
      const time = { now: Date.now() };
      const clock = clockReading(() => time.now);
      const events: CheckoutRelayEvent[] = [];
      const relay = createCheckoutRelay({
        secretKey: SANDBOX_KEYS.secret,
        baseUrl: served.url,
        lookupSecret: LOOKUP_SECRET,
        priceCart,
        rateLimit: false,
        onEvent: (event) => {
          events.push(event);
        },
        journal: await openJournal('memory:', { clock }),
        onPaid: () => undefined,
        clock,
        watch: { ticks: false, intervalMs: 3_000 },
      });
      after(() => relay.close());
      for (let order = 0; order < ORDERS; order++) {
        const created = await relay.create(createRequest(intent()), CLIENT);
        assert.equal(created.status, 200);
      }

      service.broken = true;
      for (let elapsed = 0; elapsed < RUN_MS; elapsed += STEP_MS) {
        time.now += STEP_MS;
        await relay.fulfilment?.tick();
      }
      const pauses = events.filter((event) => event.type === 'watcher_paused');
      t.diagnostic(
        `${service.calls} calls in ${RUN_MS / 1000} s for ${ORDERS} orders; ${pauses.length} pauses`,
      );
      assert.ok(pauses.length >= 2, 'the watcher paused, and paused again after a probe');
      // The first batch, then one probe a pause, each pause longer than the last.
      assert.ok(service.calls <= WATCH_BATCH_SIZE + 4, `${service.calls} calls`);
    });
  }
});
