/**
 * The service goes away while orders wait: a real fault proxy on loopback
 * between the relay and the sandbox drops every connection for a minute,
 * then answers every call `503` for another. The watcher's clock and the
 * sandbox's are moved by hand, so two minutes take a second or two. Every
 * order is delivered afterwards, and the calls during the outage stay few.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { FulfilledOrder } from '../../src/server/index.js';
import { startFaultProxy } from '../fixtures/fault-proxy.js';
import { freshJournal } from '../fixtures/fulfilment.js';
import { createRequest, createTestRelay, intent } from '../fixtures/relay.js';
import { clockReading } from '../fixtures/relay-clock.js';
import { sandboxWithClock, serveSandbox } from '../fixtures/sandbox.js';

const ORDERS = 100;
const OUTAGE_MS = 120_000;
const INTERVAL_MS = 3_000;

async function outageStack(plan: { refusing: boolean; rateLimited: boolean }) {
  const { clock, sandbox } = sandboxWithClock();
  const served = await serveSandbox(sandbox);
  const unavailable = { error: { code: 'service_unavailable', type: 'api_error', message: 'Down.' } };
  const limited = { error: { code: 'rate_limited', type: 'rate_limit_error', message: 'Slow down.' } };
  const proxy = await startFaultProxy(served.url, () => {
    if (plan.rateLimited)
      return { kind: 'answer', status: 429, body: limited, headers: { 'retry-after': '20' } };
    return plan.refusing ? { kind: 'answer', status: 503, body: unavailable } : { kind: 'forward' };
  });
  const paid: FulfilledOrder[] = [];
  const events: string[] = [];
  const relay = createTestRelay({
    baseUrl: proxy.url,
    rateLimit: false,
    onEvent: (event) => {
      events.push(event.type);
    },
    journal: await freshJournal('sqlite:', clock),
    onPaid: (order) => {
      paid.push(order);
    },
    clock: clockReading(() => clock.now),
    watch: { ticks: false },
  });
  after(async () => {
    await relay.close();
    await proxy.close();
    await served.close();
  });
  const calls = () => proxy.requests.length + proxy.refusedConnections;
  const tick = async () => {
    clock.now += INTERVAL_MS;
    await relay.fulfilment?.tick();
  };
  return { relay, proxy, clock, paid, events, calls, tick };
}

describe('fulfilment through an outage', () => {
  it('delivers every waiting order after two minutes of dropped and refused calls, calling rarely meanwhile', async (t) => {
    const plan = { refusing: false, rateLimited: false };
    const stack = await outageStack(plan);
    for (let i = 0; i < ORDERS; i++) {
      const response = await stack.relay.create(createRequest(intent()), { clientAddress: '198.51.100.7' });
      assert.equal(response.status, 200);
    }
    const before = stack.calls();
    stack.proxy.setOffline(true);
    const start = stack.clock.now;
    while (stack.clock.now - start < OUTAGE_MS) {
      if (stack.clock.now - start >= OUTAGE_MS / 2 && stack.proxy.offline) {
        stack.proxy.setOffline(false);
        plan.refusing = true;
      }
      await stack.tick();
    }
    const duringOutage = stack.calls() - before;
    plan.refusing = false;
    assert.equal(stack.paid.length, 0);
    for (let i = 0; i < 60 && stack.paid.length < ORDERS; i++) await stack.tick();
    assert.equal(stack.paid.length, ORDERS, 'every order is delivered');
    assert.equal(new Set(stack.paid.map((order) => order.id)).size, ORDERS, 'each once');
    const perMinute = (duringOutage / OUTAGE_MS) * 60_000;
    t.diagnostic(
      `calls during the 2-minute outage: ${duringOutage} (${perMinute.toFixed(1)} a minute) for ${ORDERS} waiting orders`,
    );
    // Unpaused, the watcher would make 100 calls every 3 s: 4,000 in two minutes.
    assert.ok(duringOutage <= 40, `${duringOutage} calls during the outage`);
    assert.ok(stack.events.includes('watcher_paused'));
    assert.ok(stack.events.includes('watcher_resumed'));
  });

  it('waits at least as long as a 429 asks before calling again', async () => {
    const plan = { refusing: false, rateLimited: false };
    const stack = await outageStack(plan);
    await stack.relay.create(createRequest(intent()), { clientAddress: '198.51.100.7' });
    plan.rateLimited = true;
    await stack.tick();
    const afterFirst = stack.proxy.requests.length;
    plan.rateLimited = false;
    for (let waited = INTERVAL_MS; waited < 18_000; waited += INTERVAL_MS) await stack.tick();
    assert.equal(stack.proxy.requests.length, afterFirst, 'no call inside the Retry-After');
    for (let i = 0; i < 3; i++) await stack.tick();
    assert.equal(stack.paid.length, 1);
  });
});
