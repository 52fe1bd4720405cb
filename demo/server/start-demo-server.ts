/**
 * The demo server: one Node process, one origin. It serves the built demo page,
 * the merchant relay at `/api/checkout/{orders,lookup,price}` and, unless a real
 * service is configured, the offline sandbox at `/sandbox`.
 * `npm start` and the end-to-end tests run this same function.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { answerErrors, type ConnectionInfo, errorResponse, jsonResponse } from '../../src/http/index.js';
import { listen, toNodeListener } from '../../src/http/node/index.js';
import { createSandbox, SANDBOX_KEYS, type Sandbox } from '../../src/sandbox/index.js';
import {
  CartError,
  type CheckoutRelay,
  type CheckoutRelayEventHandler,
  type CheckoutRelayRateLimitOptions,
  createCheckoutRelay,
  createLookupTokens,
  type FulfilledOrder,
} from '../../src/server/node.js';
import {
  CHECKOUT_PATHS,
  DEMO_CART_PATH,
  DEMO_CONFIG_PATH,
  DEMO_FULFILMENTS_PATH,
  DEMO_WEBHOOK_PATH,
  type DemoConfig,
  SANDBOX_BASE_PATH,
} from '../demo-config.js';
import { DEMO_CATALOGUE, priceDemoCart } from './catalogue.js';
import { createDemoCarts } from './demo-cart.js';
import { DEFAULT_DEMO_JOURNAL_URL, type DemoFulfilment, openDemoFulfilment } from './demo-fulfilment.js';
import { createDemoWebhookReceiver } from './demo-webhooks.js';
import { isLocalUnforwarded, isLoopbackHost } from './local-only.js';
import { maskKey } from './mask-key.js';
import { createPhoneControl, PHONE_CONTROL_PATH, withPhoneCookie } from './phone-control.js';
import { SECURITY_HEADERS, withSecurityHeaders } from './security-headers.js';
import { loadStaticAssets, type StaticAssets, serveStaticAsset, toStaticAsset } from './static-assets.js';

/** The sandbox's approval delay when none is given. */
export const DEFAULT_SANDBOX_APPROVE_MS = 6000;

/** The shop name the phone mock-up shows in the payer's prompt. */
export const DEMO_MERCHANT_NAME = 'Kente & Co.';

const DEMO_APPLICATION = { id: 'app_kente_demo', name: DEMO_MERCHANT_NAME };

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Options of {@link startDemoServer}; {@link demoServerOptionsFromEnv} reads them from `npm start`'s environment. */
export interface DemoServerOptions {
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** The real service's base URL; unset mounts the sandbox at `/sandbox`. Needs `secretKey`. */
  serviceBaseUrl?: string;
  /**
   * The service's secret key. Default `sk_test_sandbox` with the sandbox on
   * loopback; beyond loopback a random test key (the published one is refused).
   */
  secretKey?: string;
  /** How long the sandbox's simulated payer takes to approve. Default 6000 ms. */
  sandboxApproveAfterMs?: number;
  /** Secret the relay signs lookup tokens with. Default: random for this process. */
  lookupSecret?: string;
  /** Folder of the built demo page. Default `dist/demo` (env `PAY_DEMO_PAGE_ROOT`). */
  pageRoot?: string;
  /** The built embed bundle, served at `/pay-checkout.embed.js` and quoted in the snippet. */
  embedBundlePath?: string;
  /** Receives every relay event (orders, refusals, upstream failures). Default: ignored. */
  onRelayEvent?: CheckoutRelayEventHandler;
  /** The relay's rate limits; default the relay's own (per client address). */
  rateLimit?: CheckoutRelayRateLimitOptions | false;
  /** The order journal. Default `memory:`; `npm start` gives an SQLite file (`PAY_JOURNAL_URL`). */
  journalUrl?: string;
  /** Hears each order the merchant's server was told of (`onPaid`, `onFailed`, `onExpired`). */
  onFulfilled?: (order: FulfilledOrder) => void;
}

/** A running demo server. */
export interface RunningDemoServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  /** `sandbox` when the embedded sandbox answers payments, `service` for a real service. */
  mode: 'sandbox' | 'service';
  /** The embedded sandbox, for tests and the console; undefined with a real service. */
  sandbox: Sandbox | undefined;
  /** The base URL the relay calls. */
  serviceBaseUrl: string;
  /** The relay's key, masked for the banner. */
  maskedSecretKey: string;
  /** Stops listening, drops open connections, stops the watcher and closes the journal. */
  close(): Promise<void>;
}

/** Thrown for a configuration that cannot work, with a message to show as is. */
export class DemoConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoConfigurationError';
  }
}

/** Reads `npm start`'s environment into options; throws {@link DemoConfigurationError}. */
export function demoServerOptionsFromEnv(env: NodeJS.ProcessEnv): DemoServerOptions {
  const options: DemoServerOptions = {
    port: readInteger(env, 'PORT', 5173, 0, 65_535),
    host: env.HOST || '127.0.0.1',
    sandboxApproveAfterMs: readInteger(
      env,
      'PAY_SANDBOX_APPROVE_MS',
      DEFAULT_SANDBOX_APPROVE_MS,
      0,
      24 * 60 * 60 * 1000,
    ),
  };
  if (env.PAY_API_BASE_URL) options.serviceBaseUrl = env.PAY_API_BASE_URL;
  if (env.PAY_SECRET_KEY) options.secretKey = env.PAY_SECRET_KEY;
  if (env.PAY_LOOKUP_SECRET) options.lookupSecret = env.PAY_LOOKUP_SECRET;
  if (env.PAY_DEMO_PAGE_ROOT) options.pageRoot = env.PAY_DEMO_PAGE_ROOT;
  options.journalUrl = env.PAY_JOURNAL_URL || DEFAULT_DEMO_JOURNAL_URL;
  return options;
}

function readInteger(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new DemoConfigurationError(`${name} must be a whole number from ${min} to ${max}; it is "${raw}".`);
  }
  return value;
}

/** Starts the demo server; `port: 0` (the default) picks a free port. */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<RunningDemoServer> {
  const mode = options.serviceBaseUrl ? 'service' : 'sandbox';
  if (mode === 'service' && !options.secretKey) {
    throw new DemoConfigurationError(
      'PAY_API_BASE_URL is set but PAY_SECRET_KEY is not: give the service’s secret key too, or unset PAY_API_BASE_URL to use the sandbox.',
    );
  }
  const host = options.host ?? '127.0.0.1';
  const secretKey = demoSecretKey(options.secretKey, host);
  const lookupSecret = options.lookupSecret ?? randomBytes(32).toString('base64url');
  const pageRoot = options.pageRoot ?? `${REPO_ROOT}dist/demo`;
  const assets = loadStaticAssets(pageRoot);
  if (!assets.has('/index.html')) {
    throw new DemoConfigurationError(
      `The demo page is not built in ${pageRoot}: "npm start" builds it first (or run "npx vite build").`,
    );
  }
  const embed = loadEmbedBundle(assets, options.embedBundlePath ?? `${REPO_ROOT}dist/pay-checkout.embed.js`);
  const approveAfterMs = options.sandboxApproveAfterMs ?? DEFAULT_SANDBOX_APPROVE_MS;
  const sandbox = mode === 'sandbox' ? createDemoSandbox(secretKey, approveAfterMs, host) : undefined;
  const phone = sandbox ? createPhoneControl(sandbox, createLookupTokens(lookupSecret)) : undefined;
  const config: DemoConfig = {
    mode,
    merchantName: DEMO_MERCHANT_NAME,
    products: DEMO_CATALOGUE,
    checkout: CHECKOUT_PATHS,
    sandbox: sandbox ? { controlUrl: PHONE_CONTROL_PATH, approveAfterMs } : null,
    embed: { version: packageVersion(), integrity: embed.integrity },
  };

  const carts = createDemoCarts(lookupSecret);
  const fulfilment = await openFulfilment(options);
  const webhookReceiver = createDemoWebhookReceiver();
  // The relay needs the sandbox's URL, which is known once the port is.
  let relay: CheckoutRelay | undefined;
  const route = async (request: Request, context?: ConnectionInfo): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (
      pathname === CHECKOUT_PATHS.create ||
      pathname === CHECKOUT_PATHS.lookup ||
      pathname === CHECKOUT_PATHS.price
    ) {
      if (!relay) return errorResponse('internalError', 'The server is starting.');
      const answer = await relay.handle(request, context);
      return pathname === CHECKOUT_PATHS.create && phone ? withPhoneCookie(answer) : answer;
    }
    if (phone && pathname.startsWith(`${PHONE_CONTROL_PATH}/`)) {
      return phone(request, pathname.slice(PHONE_CONTROL_PATH.length + 1));
    }
    if (sandbox && (pathname === SANDBOX_BASE_PATH || pathname.startsWith(`${SANDBOX_BASE_PATH}/`))) {
      // Published keys and a keyless control surface: for this machine only.
      return isLocalUnforwarded(request, context) ? sandbox.handle(request) : notFound();
    }
    if (pathname === DEMO_FULFILMENTS_PATH) return fulfilment.answer(request);
    if (pathname === DEMO_WEBHOOK_PATH) return webhookReceiver.answer(request, context);
    if (pathname === DEMO_CART_PATH) return carts.answer(request);
    if (pathname === DEMO_CONFIG_PATH) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed('GET, HEAD');
      return jsonResponse(config);
    }
    if (pathname.startsWith('/api/')) {
      return errorResponse('resourceNotFound', `There is no ${pathname} here.`);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return assets.has(pathname) ? methodNotAllowed('GET, HEAD') : notFound();
    }
    return serveStaticAsset(assets, request) ?? notFound();
  };

  // Every answer, a bare 500 for a throw included, carries the security headers.
  const answered = answerErrors(route);
  const handler = async (request: Request, context?: ConnectionInfo): Promise<Response> =>
    withSecurityHeaders(await answered(request, context));

  // The listener's own answers (a body over 16 KiB, or one that stalls) carry them too.
  const running = await listen(toNodeListener(handler, { errorHeaders: SECURITY_HEADERS }), {
    port: options.port ?? 0,
    host,
    errorHeaders: SECURITY_HEADERS,
  });
  const selfUrl = `http://${loopbackHost(host)}:${running.port}`;
  const serviceBaseUrl = options.serviceBaseUrl ?? `${selfUrl}${SANDBOX_BASE_PATH}`;
  relay = createCheckoutRelay({
    secretKey,
    // Real loopback HTTP to our own /sandbox: the relay takes the exact path it takes to a real service.
    baseUrl: serviceBaseUrl,
    // What is charged comes from the catalogue, and the reference from the cart session's cookie.
    priceCart: (cart: unknown, request: Request) => {
      const priced = priceDemoCart(cart, carts.referenceOf(request));
      if ('problem' in priced) throw new CartError(priced.problem.message, { param: priced.problem.param });
      return priced;
    },
    lookupSecret,
    onEvent: options.onRelayEvent ?? (() => undefined),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...fulfilment.relayOptions,
    // Every settled order also goes out as a signed webhook, to this server's own receiver.
    ...webhookReceiver.relayOptions(selfUrl),
  });
  return {
    url: selfUrl,
    port: running.port,
    mode,
    sandbox,
    serviceBaseUrl,
    maskedSecretKey: maskKey(secretKey),
    close: async () => {
      await running.close();
      await relay?.close();
    },
  };
}

/** The demo's journal and callbacks; a journal URL that cannot work is a configuration error. */
async function openFulfilment(options: DemoServerOptions): Promise<DemoFulfilment> {
  try {
    return await openDemoFulfilment(options.journalUrl ?? 'memory:', options.onFulfilled);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new DemoConfigurationError(`PAY_JOURNAL_URL cannot be opened: ${message}`);
  }
}

/**
 * The relay's key: the one given, else the sandbox's published key on
 * loopback; beyond loopback a random test key, since anyone may read the
 * published one, and the published one is refused.
 */
function demoSecretKey(given: string | undefined, host: string): string {
  if (isLoopbackHost(host)) return given ?? SANDBOX_KEYS.secret;
  if ((Object.values(SANDBOX_KEYS) as string[]).includes(given ?? '')) {
    throw new DemoConfigurationError(
      `PAY_SECRET_KEY=${given} is published: anyone could use it against a demo on HOST=${host}. Unset PAY_SECRET_KEY (a random test key is made) or give a key of your own.`,
    );
  }
  return given ?? `sk_test_demo_${randomBytes(18).toString('hex')}`;
}

/** The sandbox, with the demo's key linked to the demo shop, so the payer's prompt names it. */
function createDemoSandbox(secretKey: string, approveAfterMs: number, host: string): Sandbox {
  if (!secretKey.startsWith('sk_test_')) {
    throw new DemoConfigurationError(
      'The sandbox takes test keys only (sk_test_…). To use another key, set PAY_API_BASE_URL to the service too.',
    );
  }
  const sandbox = createSandbox({ basePath: SANDBOX_BASE_PATH, approveAfterMs });
  // The read-only test key keeps its limits: a merchant may start the demo with it to see the 403.
  if (secretKey !== SANDBOX_KEYS.readOnly) {
    try {
      sandbox.keys.add({ key: secretKey, application: DEMO_APPLICATION });
    } catch {
      throw new DemoConfigurationError(
        'PAY_SECRET_KEY is not a key the sandbox can hold: use sk_test_ followed by letters, digits and _.',
      );
    }
  }
  // Beyond loopback the published keys open nothing, even to a process on this machine.
  if (!isLoopbackHost(host)) {
    for (const published of Object.values(SANDBOX_KEYS))
      if (published !== secretKey) sandbox.keys.revoke(published);
  }
  return sandbox;
}

function loopbackHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function loadEmbedBundle(assets: StaticAssets, path: string): { integrity: string | null } {
  if (!existsSync(path)) return { integrity: null };
  const bundle = readFileSync(path);
  assets.set('/pay-checkout.embed.js', toStaticAsset('/pay-checkout.embed.js', bundle));
  // Hashed here, from the bytes served, so the snippet's integrity can never go stale.
  return { integrity: `sha384-${createHash('sha384').update(bundle).digest('base64')}` };
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}

function methodNotAllowed(allow: string): Response {
  return errorResponse('methodNotAllowed', `Use ${allow}.`, { headers: { allow } });
}

function notFound(): Response {
  return new Response('Not found.\n', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  });
}
