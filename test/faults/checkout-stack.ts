/**
 * The whole checkout on loopback with a fault proxy at each hop (issue #7):
 *
 *   Chromium ─▶ relay proxy ─▶ shop server (page, embed, relay) ─▶ sandbox proxy ─▶ sandbox
 *
 * Every hop is real HTTP on 127.0.0.1. The shop server is what a merchant
 * runs: a page with `<pay-checkout>` from the embed bundle, and the real relay
 * on the same origin. The page records every event the element fires, so a
 * test can count them. Not a test file: the fault and lifecycle tests use it.
 */
import { PAY_CHECKOUT_EVENT_NAMES, type PayCheckoutEventName } from '../../src/element/events.js';
import { createSandbox, SANDBOX_KEYS, type Sandbox } from '../../src/sandbox/index.js';
import {
  type CheckoutRelayEvent,
  type CheckoutRelayRateLimitOptions,
  createCheckoutRelay,
  listen,
  type PricedLineItem,
  toNodeListener,
} from '../../src/server/index.js';
import { SERVICE_MAX_BODY_BYTES } from '../../src/shared/service-contract.js';
import { embedBundleCode } from '../shared/embed-bundle.js';
import { type FaultPlanner, type FaultProxy, startFaultProxy } from './fault-proxy.js';

/** The page's paths of the relay, as a merchant mounts it. */
export const CHECKOUT_URLS = { create: '/api/checkout/orders', lookup: '/api/checkout/lookup' } as const;

/** The relay's lookup secret in every stack, so a test can sign a token for an order it seeded. */
export const STACK_LOOKUP_SECRET = 'fault-suite-lookup-secret-0123456789';

/** One event as the page recorded it. */
export interface RecordedPayEvent {
  type: PayCheckoutEventName;
  detail: Record<string, unknown>;
}

/** Options of {@link startCheckoutStack}. */
export interface CheckoutStackOptions {
  /** The sandbox's simulated payer answers after this long. Default 1500 ms. */
  approveAfterMs?: number;
  /** Faults between the browser and the shop server (page, embed and relay). */
  relayFaults?: FaultPlanner;
  /** Faults between the relay and the sandbox. */
  sandboxFaults?: FaultPlanner;
  /** The relay's rate limits; default the product's own. */
  rateLimit?: CheckoutRelayRateLimitOptions | false;
  /** Attributes of `<pay-checkout>` besides the two URLs (`poll-interval`, `poll-timeout`…). */
  attributes?: Record<string, string>;
  /** Mount the element on load (default), or leave the page empty for a test that mounts its own. */
  mountElement?: boolean;
}

/** A running stack. */
export interface CheckoutStack {
  /** The shop's page, through the relay proxy: open it in the browser. */
  pageUrl: string;
  sandbox: Sandbox;
  /** The proxy between the browser and the shop server. */
  relayProxy: FaultProxy;
  /** The proxy between the relay and the sandbox. */
  sandboxProxy: FaultProxy;
  /** Everything the relay told the merchant. */
  relayEvents: CheckoutRelayEvent[];
  close(): Promise<void>;
}

/** The one price the shop charges, whatever the page sends. */
const PRICED: PricedLineItem[] = [
  { type: 'product', product: { name: 'Kente tote', price: { currency: 'ghs', value: 5000 }, quantity: 1 } },
];

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The shop's page: the event recorder first, then the element, then the embed script. */
export function checkoutPageHtml(attributes: Record<string, string>, mountElement: boolean): string {
  const all = {
    'create-url': CHECKOUT_URLS.create,
    'lookup-url': CHECKOUT_URLS.lookup,
    amount: '5000',
    ...attributes,
  };
  const element = mountElement
    ? `<pay-checkout ${Object.entries(all)
        .map(([name, value]) => `${name}="${escapeAttribute(value)}"`)
        .join(' ')}></pay-checkout>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script>
// Kept in sessionStorage, so the count spans reloads: an event fires once per attempt, reloads included.
window.__payEvents = JSON.parse(sessionStorage.getItem('__payEvents') || '[]');
for (const type of ${JSON.stringify(PAY_CHECKOUT_EVENT_NAMES)}) {
  document.addEventListener(type, (event) => {
    window.__payEvents.push({ type, detail: JSON.parse(JSON.stringify(event.detail ?? null)) });
    sessionStorage.setItem('__payEvents', JSON.stringify(window.__payEvents));
  });
}
</script>
</head><body><main>${element}</main>
<script src="/pay-checkout.embed.js"></script>
</body></html>`;
}

/** Starts sandbox, proxies, relay and shop server; see the module comment. */
export async function startCheckoutStack(options: CheckoutStackOptions = {}): Promise<CheckoutStack> {
  const sandbox = createSandbox({ approveAfterMs: options.approveAfterMs ?? 1500 });
  const sandboxServer = await listen(
    toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }),
  );
  const sandboxProxy = await startFaultProxy(sandboxServer.url, options.sandboxFaults);
  const relayEvents: CheckoutRelayEvent[] = [];
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: sandboxProxy.url,
    priceCart: () => PRICED,
    lookupSecret: STACK_LOOKUP_SECRET,
    onEvent: (event) => {
      relayEvents.push(event);
    },
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
  });
  const page = checkoutPageHtml(options.attributes ?? {}, options.mountElement ?? true);
  const embed = await embedBundleCode();
  const shop = await listen((incoming, outgoing) => {
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/api/checkout/')) return relay.node(incoming, outgoing);
    if (path === '/' || path === '/pay-checkout.embed.js') {
      const isPage = path === '/';
      outgoing.writeHead(200, {
        'content-type': isPage ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8',
        'cache-control': 'no-store',
      });
      outgoing.end(isPage ? page : embed);
      return;
    }
    outgoing.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
  });
  const relayProxy = await startFaultProxy(shop.url, options.relayFaults);
  return {
    pageUrl: `${relayProxy.url}/`,
    sandbox,
    relayProxy,
    sandboxProxy,
    relayEvents,
    close: async () => {
      await relayProxy.close();
      await shop.close();
      await sandboxProxy.close();
      await sandboxServer.close();
    },
  };
}
