/**
 * The browser tests' server side, mounted as web-test-runner middleware: the
 * real sandbox (on its own loopback port) and the real relay in front of it,
 * so `<pay-checkout>` talks to the wire a merchant's page talks to. Paths:
 *
 * - `/api/checkout/orders`, `/api/checkout/lookup`: the relay;
 * - `/api/server-checkout/…`: a second relay in front of the same sandbox,
 *   with a journal, for checkouts the shop's server creates
 *   (`POST /test-server/checkouts` creates one, `POST /test-server/checkout-clock`
 *   moves that relay's clock on, so a checkout expires);
 * - `/sandbox/*`: the sandbox, for its control surface (`/sandbox/_sandbox/payments/approve`…);
 * - `/test-server/*`: what only tests need: counting orders and creates, arming
 *   faults that break the real wire, making the relay's answers carry an
 *   amount and a reference (`charged`), and a page served under a strict CSP.
 *
 * Not a test file: web-test-runner.config.mjs imports it.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Context, Next } from 'koa';
import { createSandbox, SANDBOX_KEYS, type Sandbox } from '../../src/sandbox/index.js';
import {
  CartError,
  type CheckoutRelay,
  createCheckoutRelay,
  listen,
  openJournal,
  type PricedLineItem,
  type ServerCheckoutInput,
  toNodeListener,
} from '../../src/server/node.js';
import { priceAnyCart, SOLD_OUT_MESSAGE, SOLD_OUT_SKU } from '../fixtures/checkout-data.js';
import { embedBundleCode } from '../fixtures/embed-bundle.js';
import { createTestRelay } from '../fixtures/relay.js';
import { clockAhead, clockReading } from '../fixtures/relay-clock.js';

/**
 * The sandbox's simulated payers never answer on their own within a test
 * run (a day): each test that needs `paid` or `failed` answers for the payer
 * through the sandbox's control surface (`payerAnswers` in the harness), so
 * no state depends on how busy the machine is.
 */
export const TEST_APPROVE_AFTER_MS = 24 * 60 * 60 * 1000;

/** The shop's price for any cart, except one holding the sold-out product: a CartError naming it. */
function priceCart(cart: unknown): PricedLineItem[] {
  const items = (cart as { items?: { sku?: unknown }[] } | null)?.items ?? [];
  const soldOut = items.findIndex((item) => item?.sku === SOLD_OUT_SKU);
  if (soldOut >= 0) throw new CartError(SOLD_OUT_MESSAGE, { param: `cart.items[${soldOut}].sku` });
  return priceAnyCart();
}

/** The CSP the element must work under (issue #4). */
export const STRICT_CSP = "script-src 'self'; style-src 'self'; require-trusted-types-for 'script'";

/** One create request the relay saw, for exactly-once checks. */
export interface CreateRecord {
  idempotencyKey: string | undefined;
  phoneNumber: string | undefined;
  status: number;
  /** The relay answered, but the test server cut the connection before the browser heard it. */
  dropped: boolean;
}

/** Faults to apply to the next requests; each count goes down as it is used. */
export interface Faults {
  /** Let the relay create, then destroy the socket: the answer is lost after the relay acted. */
  dropCreateAnswers: number;
  /** Answer creates `503` in the relay's error shape without reaching it (a failing gateway). */
  failCreates: number;
  /** Answer lookups `503` the same way. */
  failLookups: number;
  /** Blank the customer's name on the way, so the real relay answers `400` with `param`. */
  blankNextCreateName: number;
}

/**
 * What a relay of today adds to its answers: `order.amount` on creates
 * and lookups, `reference` on creates. Set, the test server puts them into
 * the real relay's answers (over any it sent), so the element can be tested
 * with a relay that charges something else than the page says, and with
 * one that sends neither (an older relay, or one in another language).
 */
export interface Charged {
  amount: { currency: string; value: number };
  reference: string | null;
}

interface TestServer {
  sandbox: Sandbox;
  sandboxUrl: string;
  relay: CheckoutRelay;
  /** The relay of server-created checkouts, on a journal of its own. */
  checkoutRelay: CheckoutRelay;
  sandboxListener: (request: IncomingMessage, response: ServerResponse) => void;
  creates: CreateRecord[];
  lookups: number;
  faults: Faults;
  /** Null: the relay's answers as they are; `'none'`: without amount and reference (an older relay). */
  charged: Charged | 'none' | null;
  close(): Promise<void>;
}

const NO_FAULTS: Faults = { dropCreateAnswers: 0, failCreates: 0, failLookups: 0, blankNextCreateName: 0 };

let server: Promise<TestServer> | undefined;

/**
 * The relay's clock. The relay answers every lookup within 2 s of a read with
 * that read; a test answers for the payer within milliseconds
 * of the last poll, where a real payer takes seconds. So each act on the
 * sandbox's control surface moves the relay's clock past that window: no
 * lookup after the payer's answer is given a read from before it.
 */
const relayTime = clockAhead();
/** How far the relay of server-created checkouts runs ahead of `relayTime`: moved on so a checkout expires. */
let checkoutRelayAheadMs = 0;

async function startTestServer(): Promise<TestServer> {
  const sandbox = createSandbox({ basePath: '/sandbox', approveAfterMs: TEST_APPROVE_AFTER_MS });
  const sandboxListener = toNodeListener(sandbox.handle);
  const running = await listen(sandboxListener, { port: 0, host: '127.0.0.1' });
  // The test runner must be able to exit while the sandbox still listens.
  running.server.unref();
  const sandboxUrl = `${running.url}/sandbox`;
  const relay = createTestRelay(
    {
      baseUrl: sandboxUrl,
      priceCart,
      // Every test creates from 127.0.0.1: the per-client limits would be hit, and are the relay's to test.
      rateLimit: false,
      clock: relayTime.clock,
    },
    createCheckoutRelay,
  );
  const checkoutRelay = createTestRelay(
    {
      baseUrl: sandboxUrl,
      priceCart,
      rateLimit: false,
      journal: await openJournal('memory:'),
      // Settled orders are recorded by the lookups that find them; nothing is delivered.
      onPaid: () => undefined,
      watch: { ticks: false },
      clock: clockReading(() => relayTime.clock.now() + checkoutRelayAheadMs),
    },
    createCheckoutRelay,
  );
  const state: TestServer = {
    sandbox,
    sandboxUrl,
    relay,
    checkoutRelay,
    sandboxListener,
    creates: [],
    lookups: 0,
    faults: { ...NO_FAULTS },
    charged: null,
    close: async () => {
      await checkoutRelay.close();
      await running.close();
    },
  };
  process.once('exit', () => void running.close());
  return state;
}

function testServer(): Promise<TestServer> {
  server ??= startTestServer();
  return server;
}

/** Stops the sandbox; web-test-runner exits without it, since its server is unref'd. */
export async function closeCheckoutTestServer(): Promise<void> {
  if (server) await (await server).close();
  server = undefined;
}

/** web-test-runner middleware: the relay, the sandbox and the test routes. */
export async function checkoutTestServer(context: Context, next: Next): Promise<void> {
  const path = context.path;
  if (path.startsWith('/api/checkout/')) return serveRelay(context, await testServer());
  if (path.startsWith('/api/server-checkout/')) {
    const state = await testServer();
    return serveRelay(context, state, state.checkoutRelay);
  }
  if (path.startsWith('/sandbox/')) {
    const state = await testServer();
    if (path.includes('/_sandbox/')) relayTime.pastSharedReads();
    // The sandbox's listener answers on the raw response; Koa's own status would say 404.
    context.status = 200;
    context.respond = false;
    state.sandboxListener(context.req, context.res);
    return;
  }
  if (path.startsWith('/test-server/')) return serveTestRoute(context, await testServer());
  return next();
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function gatewayFailure(context: Context): void {
  context.status = 503;
  context.set('Content-Type', 'application/json');
  context.body = JSON.stringify({
    error: { code: 'service_unavailable', message: 'The gateway failed.', type: 'api_error' },
  });
}

async function serveRelay(context: Context, state: TestServer, relay = state.relay): Promise<void> {
  const isCreate = context.path.endsWith('/orders');
  let body = await readBody(context.req);
  const { faults } = state;
  // A price request (`price-url`) is neither: the relay prices, and the service is never called.
  if (!isCreate && !context.path.endsWith('/price')) {
    state.lookups++;
    if (faults.failLookups > 0) {
      faults.failLookups--;
      return gatewayFailure(context);
    }
  }
  let record: CreateRecord | undefined;
  if (isCreate) {
    let phoneNumber: string | undefined;
    try {
      phoneNumber = JSON.parse(body)?.customer_data?.phone_number;
    } catch {
      phoneNumber = undefined;
    }
    record = {
      idempotencyKey: context.get('Idempotency-Key') || undefined,
      phoneNumber,
      status: 0,
      dropped: false,
    };
    state.creates.push(record);
    if (faults.failCreates > 0) {
      faults.failCreates--;
      record.status = 503;
      return gatewayFailure(context);
    }
    if (faults.blankNextCreateName > 0) {
      faults.blankNextCreateName--;
      const intent = JSON.parse(body);
      intent.customer_data.name = '';
      body = JSON.stringify(intent);
    }
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(context.req.headers)) {
    if (typeof value === 'string' && !/^(?:host|connection|content-length)$/i.test(name))
      headers.set(name, value);
  }
  const request = new Request(new URL(context.url, 'http://127.0.0.1'), {
    method: context.method,
    headers,
    body: context.method === 'GET' || context.method === 'HEAD' ? undefined : body,
  });
  const response = await relay.handle(request, { clientAddress: '127.0.0.1' });
  const text = withCharged(await response.text(), response.ok && state.charged, isCreate);
  if (record) record.status = response.status;
  if (record && faults.dropCreateAnswers > 0) {
    faults.dropCreateAnswers--;
    // The relay acted and answered; the browser never hears it (the retry must be safe).
    record.dropped = true;
    context.status = 200;
    context.respond = false;
    context.req.socket.destroy();
    return;
  }
  context.status = response.status;
  response.headers.forEach((value, name) => {
    if (!/^(?:content-length|connection|transfer-encoding)$/i.test(name)) context.set(name, value);
  });
  context.body = text;
}

/**
 * The relay's answer with `charged`'s amount (and, for a create, its
 * reference), or without either for `'none'`; as it was when none is set.
 */
function withCharged(text: string, charged: Charged | 'none' | false | null, isCreate: boolean): string {
  if (!charged) return text;
  const answer = JSON.parse(text);
  if (charged === 'none') {
    delete answer.order.amount;
    delete answer.reference;
  } else {
    answer.order.amount = charged.amount;
    if (isCreate) answer.reference = charged.reference;
  }
  return JSON.stringify(answer);
}

async function json(context: Context, value: unknown): Promise<void> {
  context.set('Content-Type', 'application/json');
  context.set('Cache-Control', 'no-store');
  context.body = JSON.stringify(value);
}

async function ordersFor(state: TestServer, phoneNumber: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${state.sandboxUrl}/orders/page`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ page_number: page, page_size: 256 }),
    });
    const { page: answer } = (await response.json()) as {
      page: { orders: { id: string; customer?: { phone_number?: string } }[] };
    };
    for (const order of answer.orders) if (order.customer?.phone_number === phoneNumber) ids.push(order.id);
    if (answer.orders.length < 256) return ids;
  }
}

const CSP_PAGE = readFileSync(fileURLToPath(new URL('./csp-page.html', import.meta.url)), 'utf8');
const CSP_PROBE = readFileSync(fileURLToPath(new URL('./csp-probe.js', import.meta.url)), 'utf8');

async function serveTestRoute(context: Context, state: TestServer): Promise<void> {
  const route = context.path.slice('/test-server/'.length);
  const phone = context.query.phone;
  switch (route) {
    case 'creates':
      return json(
        context,
        state.creates.filter((record) => typeof phone !== 'string' || record.phoneNumber === phone),
      );
    case 'orders':
      if (typeof phone !== 'string') break;
      return json(context, { ids: await ordersFor(state, phone) });
    case 'lookups':
      return json(context, { count: state.lookups });
    case 'faults': {
      const armed = JSON.parse((await readBody(context.req)) || '{}') as Partial<Faults>;
      for (const [name, count] of Object.entries(armed)) {
        if (name in NO_FAULTS && typeof count === 'number') state.faults[name as keyof Faults] = count;
      }
      return json(context, state.faults);
    }
    case 'charged':
      state.charged = JSON.parse((await readBody(context.req)) || 'null') as Charged | 'none' | null;
      return json(context, state.charged);
    case 'reset':
      state.faults = { ...NO_FAULTS };
      state.charged = null;
      return json(context, state.faults);
    case 'checkouts': {
      // What the shop's server does before rendering its page; the page gets the client secret only.
      const input = JSON.parse(await readBody(context.req)) as ServerCheckoutInput;
      const { clientSecret } = await state.checkoutRelay.checkouts.create(input);
      return json(context, { clientSecret });
    }
    case 'checkout-clock': {
      const { aheadMs } = JSON.parse(await readBody(context.req)) as { aheadMs: number };
      checkoutRelayAheadMs += aheadMs;
      return json(context, { aheadMs: checkoutRelayAheadMs });
    }
    case 'csp':
      context.set('Content-Security-Policy', STRICT_CSP);
      context.set('Content-Type', 'text/html; charset=utf-8');
      context.set('Cache-Control', 'no-store');
      context.body = CSP_PAGE;
      return;
    case 'csp-probe.js':
      context.set('Content-Type', 'text/javascript');
      context.body = CSP_PROBE;
      return;
    case 'embed.js':
      context.set('Content-Type', 'text/javascript');
      context.body = await embedBundleCode();
      return;
  }
  context.status = 404;
}
