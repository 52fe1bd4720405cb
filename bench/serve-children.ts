/**
 * The processes of bench/serve.bench.ts, each started in a child of its own
 * (bench/lib.ts runs a starter there): the sandbox the relays call over
 * loopback HTTP, `serve` started as a merchant starts it (its configuration
 * and environment, an SQLite journal, the sandbox as its service), and the
 * library's relay in a plain `node:http` server with the same journal kind,
 * the same shop and the same limits (the defaults, which serve keeps). Both
 * relays trust one proxy hop, so each request's `X-Forwarded-For` is its
 * shopper and the per-client limits count shoppers, as behind a shop's nginx.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, SANDBOX_KEYS } from '../src/sandbox/index.js';
import { SANDBOX_TEST_NUMBERS } from '../src/sandbox/test-numbers.js';
import { startServe } from '../src/serve/start-serve.js';
import {
  createCheckoutRelay,
  listen,
  type NodeListener,
  openJournal,
  toNodeListener,
} from '../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import { creationInputFor } from '../test/fixtures/checkout-data.js';
import { CATALOGUE, LOOKUP_SECRET, priceCart } from '../test/fixtures/relay.js';
import { withCpuReport } from './cpu-report.js';
import type { StartedServer } from './lib.js';

/** The shop's page: the one origin both relays allow, sent on every browser request. */
export const SHOP_ORIGIN = 'https://shop.example';

/** Where the parent makes the sandbox's lookups busy (`…/on`) and lets them answer again (`…/off`). */
export const BUSY_LOOKUPS_PATH = '/__bench/busy-lookups';

/**
 * The sandbox's control of its own load, as a busy service would answer: while
 * on, every lookup is a `429` asking to wait a second, so a relay's watcher
 * pauses (and backs off) while orders are made through the relay at full speed.
 */
function withBusyLookups(listener: NodeListener): NodeListener {
  let busy = false;
  return (incoming, outgoing) => {
    if (incoming.url?.startsWith(BUSY_LOOKUPS_PATH)) {
      busy = incoming.url.endsWith('/on');
      outgoing.writeHead(204).end();
      return;
    }
    if (busy && incoming.url?.endsWith('/orders/lookup')) {
      const refusal = {
        error: { code: 'rate_limited', type: 'rate_limit_error', message: 'Busy: try again later.' },
      };
      incoming.resume();
      outgoing
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        .end(JSON.stringify(refusal));
      return;
    }
    listener(incoming, outgoing);
  };
}

/**
 * Child-process starter: a sandbox holding `seededOrders` orders whose payer
 * never answers; it counts the calls it serves (bench/cpu-report.ts), and
 * its lookups can be made busy ({@link BUSY_LOOKUPS_PATH}).
 */
export async function serveBenchSandbox({
  seededOrders,
  approveAfterMs,
}: {
  seededOrders: number;
  approveAfterMs: number;
}): Promise<StartedServer<{ orderIds: string[] }>> {
  const sandbox = createSandbox({ approveAfterMs });
  const orderIds = sandbox.seedOrders(seededOrders, creationInputFor(SANDBOX_TEST_NUMBERS.neverAnswers));
  const server = await listen(
    withCpuReport(withBusyLookups(toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }))),
  );
  return { url: server.url, info: { orderIds }, close: server.close };
}

/** serve's configuration file for the sandbox at `sandboxUrl` and a journal in `folder`. */
function serveConfig(sandboxUrl: string, folder: string) {
  const catalogue = Object.fromEntries(
    Object.entries(CATALOGUE).map(([sku, { name, value }]) => [
      sku,
      { name, unitPrice: { currency: 'ghs', value } },
    ]),
  );
  return {
    listen: { host: '127.0.0.1', port: 0 },
    service: { baseUrl: sandboxUrl },
    journal: `sqlite:${join(folder, 'pay-checkout.db')}`,
    origins: [SHOP_ORIGIN],
    catalogue,
    trustProxy: 1,
  };
}

/**
 * Child-process starter: `serve`, with its log written to a file as a
 * merchant's process manager would keep it.
 */
export async function serveServe({ sandboxUrl }: { sandboxUrl: string }): Promise<StartedServer> {
  const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-bench-serve-'));
  const log = createWriteStream(join(folder, 'serve.log'));
  const serve = await startServe({
    config: serveConfig(sandboxUrl, folder),
    env: {
      PAY_SECRET_KEY: SANDBOX_KEYS.secret,
      PAY_LOOKUP_SECRET: LOOKUP_SECRET,
      PAY_CHECKOUT_API_KEY: 'bench-merchant-api-key-0123456789abcdef',
    },
    writeLog: (line) => log.write(line),
  });
  return {
    url: serve.url,
    close: async () => {
      await serve.close();
      log.end();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Child-process starter: the library's relay as a merchant embeds it in a `node:http` server. */
export async function serveLibraryRelay({ sandboxUrl }: { sandboxUrl: string }): Promise<StartedServer> {
  const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-bench-library-'));
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: sandboxUrl,
    priceCart,
    lookupSecret: LOOKUP_SECRET,
    trustProxy: 1,
    allowedOrigins: [SHOP_ORIGIN],
    journal: await openJournal(`sqlite:${join(folder, 'pay-checkout.db')}`),
    onPaid: () => undefined,
  });
  const server = await listen(relay.node);
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await relay.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
