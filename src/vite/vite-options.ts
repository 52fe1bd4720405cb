/**
 * The options of `pay-checkout/vite`, checked once when `vite.config.ts` is
 * read, so a mistake stops the dev server at start with a message that says
 * what to give, never at the first checkout.
 */
import type { PriceCart } from '../server/pricing/priced-cart.js';
import type { CheckoutRelayOptions } from '../server/relay-config.js';

/** The embedded sandbox's settings. */
export interface PayCheckoutSandboxOptions {
  /** Where the sandbox answers on the dev server. Default `/sandbox`. */
  path?: string;
  /** The simulated payer approves this long after the prompt. Default 6000 ms. */
  approveAfterMs?: number;
}

/**
 * Relay options passed through as they are (`lookupSecret`, `rateLimit`,
 * `journal`, `onPaid`, `onEvent`…); the plugin sets the key, the service
 * and `priceCart` itself.
 */
export type PayCheckoutRelayOptions = Omit<
  CheckoutRelayOptions,
  'secretKey' | 'baseUrl' | 'priceCart' | 'fetch'
>;

/** Options of `payCheckout()`. */
export interface PayCheckoutViteOptions {
  /** Turns the browser's `cart` into the line items charged (as `createCheckoutRelay` takes it). */
  priceCart: PriceCart;
  /** Where the relay answers: `{relayPath}/orders` and `{relayPath}/lookup`. Default `/api/checkout`. */
  relayPath?: string;
  /** The embedded sandbox's path and approval delay. Not with `apiBaseUrl`. */
  sandbox?: PayCheckoutSandboxOptions;
  /** A payments service of your own in test mode, instead of the sandbox: its base URL. Needs `secretKey`. */
  apiBaseUrl?: string;
  /** That service's test key (`sk_test_…`); read it from the environment. Only with `apiBaseUrl`. */
  secretKey?: string;
  /** More relay options, passed through. */
  relay?: PayCheckoutRelayOptions;
}

/** The options, checked, with their defaults. */
export interface ResolvedViteOptions {
  priceCart: PriceCart;
  relayPath: string;
  /** The sandbox to mount, or `undefined` when a real service is used. */
  sandbox: { path: string; approveAfterMs: number } | undefined;
  /** The real service, or `undefined` when the sandbox is used. */
  service: { baseUrl: string; secretKey: string } | undefined;
  relay: PayCheckoutRelayOptions;
}

const OWNER = 'payCheckout() from pay-checkout/vite';
const DEFAULT_RELAY_PATH = '/api/checkout';
const DEFAULT_SANDBOX_PATH = '/sandbox';
const DEFAULT_APPROVE_AFTER_MS = 6000;

/** Checks `options`; throws a TypeError naming the option to fix. */
export function resolveViteOptions(options: PayCheckoutViteOptions): ResolvedViteOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${OWNER}: give an options object with priceCart, e.g. payCheckout({ priceCart }).`);
  }
  if (typeof options.priceCart !== 'function') {
    throw new TypeError(
      `${OWNER}: priceCart is required: the server decides what is charged. Give priceCart(cart, request) returning the line items.`,
    );
  }
  const relayPath = checkedPath(options.relayPath ?? DEFAULT_RELAY_PATH, 'relayPath');
  const service = checkedService(options);
  const sandbox = service ? undefined : checkedSandbox(options.sandbox ?? {}, relayPath);
  if (service && options.sandbox !== undefined) {
    throw new TypeError(`${OWNER}: sandbox options do nothing with apiBaseUrl: give one or the other.`);
  }
  return { priceCart: options.priceCart, relayPath, sandbox, service, relay: options.relay ?? {} };
}

function checkedService(options: PayCheckoutViteOptions): ResolvedViteOptions['service'] {
  const { apiBaseUrl, secretKey } = options;
  if (apiBaseUrl === undefined && secretKey === undefined) return undefined;
  if (typeof apiBaseUrl !== 'string' || apiBaseUrl === '') {
    throw new TypeError(
      `${OWNER}: secretKey is for a service of your own: give its apiBaseUrl too, or neither to use the embedded sandbox.`,
    );
  }
  if (typeof secretKey !== 'string' || !secretKey.startsWith('sk_test_')) {
    // A dev or preview server is no place for a key that moves real money.
    throw new TypeError(
      `${OWNER}: with apiBaseUrl, give the service's test secret key (sk_test_…) as secretKey, read from the environment. Live keys are refused: this plugin serves development.`,
    );
  }
  return { baseUrl: apiBaseUrl, secretKey };
}

function checkedSandbox(
  sandbox: PayCheckoutSandboxOptions,
  relayPath: string,
): ResolvedViteOptions['sandbox'] {
  const path = checkedPath(sandbox.path ?? DEFAULT_SANDBOX_PATH, 'sandbox.path');
  if (isUnder(path, relayPath) || isUnder(relayPath, path)) {
    throw new TypeError(
      `${OWNER}: sandbox.path and relayPath overlap (${path}, ${relayPath}): give each its own.`,
    );
  }
  return { path, approveAfterMs: sandbox.approveAfterMs ?? DEFAULT_APPROVE_AFTER_MS };
}

function checkedPath(path: unknown, name: string): string {
  const trimmed = typeof path === 'string' ? path.replace(/\/+$/, '') : '';
  if (!/^\/[A-Za-z0-9._~\-/]+$/.test(trimmed)) {
    throw new TypeError(`${OWNER}: ${name} must be a path below the root, such as "${DEFAULT_RELAY_PATH}".`);
  }
  return trimmed;
}

/** True when `path` is `prefix` or below it. */
export function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
