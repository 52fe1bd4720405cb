/**
 * The relay in the case the product lives in (bench/relay.bench.ts runs it):
 * pending orders, each polled through the relay every 2 s (the element's
 * shortest interval) by 1 and by 5 tabs, while the relay's watcher watches
 * them on an SQLite journal, in real time. Reports what the service sees
 * (lookups per order per 2 s: at most 1; every tab on its own
 * would be 1 per tab, and the watcher 2/3 more) and the relay's CPU per
 * browser lookup, the watcher's work included.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_KEYS } from '../src/sandbox/index.js';
import { createCheckoutRelay, listen, openJournal } from '../src/server/node.js';
import { checkoutIntent, priceAnyCart, UNLIMITED } from '../test/fixtures/checkout-data.js';
import { cpuOf, withCpuReport } from './cpu-report.js';
import { type ChildServer, type StartedServer, startServerInChild } from './lib.js';

/** How often a tab polls: the element's shortest `poll-interval`. */
export const TAB_POLL_MS = 2_000;

/** What one polling run measured. */
export interface PollingFigures {
  orders: number;
  tabsPerOrder: number;
  seconds: number;
  browserLookups: number;
  serviceLookups: number;
  /** Service lookups per order per 2 s: the contract's bound is 1. */
  serviceLookupsPerOrderPer2s: number;
  /** What tabs and the watcher would cost the service each on its own, per order per 2 s. */
  unsharedLookupsPerOrderPer2s: number;
  /** The relay's CPU (watcher and journal included) per browser lookup. */
  relayCpuMicrosecondsPerBrowserLookup: number;
}

/** Child-process starter: a relay with an SQLite journal and its watcher, on the system's clock. */
export async function serveWatchingRelay({ sandboxUrl }: { sandboxUrl: string }): Promise<StartedServer> {
  const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-bench-polling-'));
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: sandboxUrl,
    lookupSecret: 'bench-polling-secret-0123456789abcdef',
    priceCart: priceAnyCart,
    rateLimit: { create: UNLIMITED, lookup: UNLIMITED, promptsPerNumber: false },
    onEvent: () => undefined,
    journal: await openJournal(`sqlite:${join(folder, 'journal.db')}`),
    onPaid: () => undefined,
  });
  const server = await listen(withCpuReport(relay.node));
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await relay.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** POSTs `body` to `url` on `agent`; resolves with the answer's text once read. */
function post(agent: Agent, url: URL, body: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          text += chunk;
        });
        incoming.on('end', () => resolve(text));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Creates `count` orders through the relay; their lookup bodies. */
async function createOrders(agent: Agent, relayUrl: string, count: number): Promise<string[]> {
  const bodies: string[] = [];
  const create = new URL(`${relayUrl}/api/checkout/orders`);
  for (let index = 0; index < count; index++) {
    const text = await post(agent, create, JSON.stringify(checkoutIntent()), {
      'idempotency-key': crypto.randomUUID(),
    });
    const created = JSON.parse(text) as { order: { id: string }; lookup_token: string };
    bodies.push(JSON.stringify({ order_id: created.order.id, lookup_token: created.lookup_token }));
  }
  return bodies;
}

/**
 * Tabs polling `bodies`' orders, `tabsPerOrder` each, every 2 s after their
 * last answer (as the element does), from a random moment of the first 2 s;
 * `stop()` ends them and waits for the polls in flight.
 */
function startTabs(agent: Agent, relayUrl: string, bodies: readonly string[], tabsPerOrder: number) {
  const lookup = new URL(`${relayUrl}/api/checkout/lookup`);
  let running = true;
  const tabs: Promise<void>[] = [];
  for (const body of bodies) {
    for (let tab = 0; tab < tabsPerOrder; tab++) {
      tabs.push(
        (async () => {
          await sleep(Math.random() * TAB_POLL_MS);
          while (running) {
            await post(agent, lookup, body);
            await sleep(TAB_POLL_MS);
          }
        })(),
      );
    }
  }
  return {
    stop: async () => {
      running = false;
      await Promise.all(tabs);
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One run: a fresh watching relay, `orders` orders, `tabsPerOrder` tabs each, measured `seconds` after a warm-up. */
export async function measurePolling(
  sandbox: ChildServer,
  run: { orders: number; tabsPerOrder: number; warmUpSeconds: number; seconds: number },
): Promise<PollingFigures> {
  const here = new URL(import.meta.url);
  const relay = await startServerInChild(here, 'serveWatchingRelay', { sandboxUrl: sandbox.url });
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  try {
    const bodies = await createOrders(agent, relay.url, run.orders);
    const tabs = startTabs(agent, relay.url, bodies, run.tabsPerOrder);
    await sleep(run.warmUpSeconds * 1000);
    const [relayBefore, serviceBefore] = await Promise.all([cpuOf(relay.url), cpuOf(sandbox.url)]);
    await sleep(run.seconds * 1000);
    const [relayAfter, serviceAfter] = await Promise.all([cpuOf(relay.url), cpuOf(sandbox.url)]);
    await tabs.stop();
    const browserLookups = relayAfter.lookups - relayBefore.lookups;
    const serviceLookups = serviceAfter.lookups - serviceBefore.lookups;
    const windows = run.seconds / 2;
    const figures: PollingFigures = {
      orders: run.orders,
      tabsPerOrder: run.tabsPerOrder,
      seconds: run.seconds,
      browserLookups,
      serviceLookups,
      serviceLookupsPerOrderPer2s: round3(serviceLookups / run.orders / windows),
      // Each tab's poll a call, and the watcher's own every 3 s (2/3 per 2 s), as before lookups were shared.
      unsharedLookupsPerOrderPer2s: round3(browserLookups / run.orders / windows + 2 / 3),
      relayCpuMicrosecondsPerBrowserLookup: Math.round(
        (relayAfter.cpuMicroseconds - relayBefore.cpuMicroseconds) / Math.max(1, browserLookups),
      ),
    };
    process.stdout.write(
      `polling, ${run.orders} orders × ${run.tabsPerOrder} tab(s) + watcher: ${figures.serviceLookupsPerOrderPer2s} service lookups per order per 2 s (unshared ${figures.unsharedLookupsPerOrderPer2s}), relay CPU ${figures.relayCpuMicrosecondsPerBrowserLookup} µs per browser lookup (${browserLookups} browser, ${serviceLookups} service lookups in ${run.seconds} s)\n`,
    );
    return figures;
  } finally {
    agent.destroy();
    await relay.close();
  }
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
