/**
 * The service client's options, checked once at startup into a frozen
 * config. The key itself is kept only inside the config's `authorization`
 * and `redact`, which no client property or error exposes.
 */

import { fetchTransport, type HttpTransport } from '../../http/transport.js';
import { sleep } from '../../shared/backoff.js';
import { assertSecretKey, redactSecret } from '../tokens/secret-key.js';

/** Options of `createServiceClient`. */
export interface ServiceClientOptions {
  /** The service's base URL (spec: `{base_url}`), such as the sandbox's. */
  baseUrl: string;
  /** A secret key, `sk_test_…` or `sk_live_…`. Publishable keys are refused. */
  secretKey: string;
  /** The fetch to call; defaults to the global one. */
  fetch?: typeof fetch;
  /** Time allowed for one attempt, answer body included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt, for failures a retry may cure. Default 3. */
  maxRetries?: number;
  /** Longest `Retry-After` the client waits out; a longer one is thrown at once. Default 20 000 ms. */
  maxRetryAfterMs?: number;
  /** Draws the backoff jitter; injectable for tests. Default `Math.random`. */
  random?: () => number;
  /** Waits between attempts; injectable for tests. Must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Default time allowed for one attempt. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 3;
/** Default longest `Retry-After` waited out. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 20_000;

/** The checked settings every call reads. */
export interface ServiceClientConfig {
  readonly baseUrl: string;
  readonly transport: HttpTransport;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxRetryAfterMs: number;
  readonly random: () => number;
  readonly wait: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** `Bearer <key>`, built once. */
  readonly authorization: string;
  /** The text with the key replaced, for every message and cause the client makes. */
  readonly redact: (text: string) => string;
  /** True when `text` quotes the key. */
  readonly quotesKey: (text: string) => boolean;
}

/**
 * Checks `options`; throws a TypeError for a missing, publishable or malformed
 * key, a bad base URL or a bad number. `transport` wins over `options.fetch`
 * (the relay's Node entry gives undici's).
 */
export function resolveServiceClientConfig(
  options: ServiceClientOptions,
  transport?: HttpTransport,
): ServiceClientConfig {
  const owner = 'createServiceClient';
  const secretKey = options.secretKey;
  assertSecretKey(secretKey, owner);
  return Object.freeze({
    baseUrl: normalizeBaseUrl(options.baseUrl, owner),
    transport: transport ?? fetchTransport(options.fetch ?? globalThis.fetch.bind(globalThis)),
    timeoutMs: positiveNumber(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    maxRetries: Math.floor(nonNegativeNumber(options.maxRetries, DEFAULT_MAX_RETRIES, 'maxRetries')),
    maxRetryAfterMs: nonNegativeNumber(
      options.maxRetryAfterMs,
      DEFAULT_MAX_RETRY_AFTER_MS,
      'maxRetryAfterMs',
    ),
    random: options.random ?? Math.random,
    wait: options.sleep ?? sleep,
    authorization: `Bearer ${secretKey}`,
    redact: (text: string) => redactSecret(text, secretKey),
    quotesKey: (text: string) => text.includes(secretKey),
  });
}

/** `baseUrl` without trailing slashes; throws a TypeError unless it is an http(s) URL. */
export function normalizeBaseUrl(baseUrl: unknown, owner: string): string {
  if (typeof baseUrl !== 'string' || baseUrl === '') {
    throw new TypeError(
      `${owner}: baseUrl is required: the payments service's base URL, such as https://… or the sandbox's URL.`,
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`${owner}: baseUrl is not a URL; give an absolute http(s) URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`${owner}: baseUrl must be an http: or https: URL.`);
  }
  return baseUrl.replace(/\/+$/, '');
}

function positiveNumber(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) {
    throw new TypeError(`createServiceClient: ${name} must be a positive number.`);
  }
  return value;
}

function nonNegativeNumber(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new TypeError(`createServiceClient: ${name} must be zero or a positive number.`);
  }
  return value;
}
