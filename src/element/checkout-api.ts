/**
 * The element's side of the wire to the merchant relay: plain
 * functions taking an `AbortSignal` and an injectable `fetch`, no DOM.
 * Creates retry by themselves, always with the same idempotency key, so a
 * flaky network costs a wait, never a second order.
 */
import { equalJitterDelay, sleep } from '../shared/backoff.js';
import { IDEMPOTENCY_KEY_HEADER } from '../shared/service-contract.js';
import type { CreateAnswer, LookupAnswer, LookupRequest, OrderAmount, PriceAnswer } from '../shared/wire.js';
import {
  readAmount,
  readCreateAnswer,
  readErrorBody,
  readLookupAnswer,
  readPriceAnswer,
} from './wire-guards.js';

/** A failed call to the relay, in the relay's error vocabulary. Messages never carry keys. */
export class CheckoutRequestError extends Error {
  override name = 'CheckoutRequestError';

  /** HTTP status: 0 when there was no answer, 2xx for an answer we cannot read. */
  declare readonly status: number;
  /** The relay's `error.code`, or `network_error` / `invalid_answer` / `http_<status>`. */
  declare readonly code: string;
  /** The input field a `400` names, dotted: `customer_data.name`. */
  declare readonly param?: string;
  /** From `Retry-After`, when the relay sent one. */
  declare readonly retryAfterMs?: number;
  /** The relay's new price beside a `409` `amount_changed`: no prompt was sent. */
  declare readonly amount?: OrderAmount;

  // Assigned, not declared as parameter properties, which would emit each field twice.
  constructor(
    status: number,
    code: string,
    message: string,
    param?: string,
    retryAfterMs?: number,
    amount?: OrderAmount,
  ) {
    super(message);
    Object.assign(this, { status, code, param, retryAfterMs, amount });
  }

  /** Set when earlier tries of the same create failed or went unanswered first: one of them may have reached the service. */
  declare retried?: boolean;

  /**
   * True when sending the same request again may work: no answer, an answer
   * we cannot read (a captive portal, a proxy), `5xx`, `409` in flight, `429`.
   * Only a relay that clearly refused (an error status below 500, or a `409`
   * for a server-created checkout already paid or expired: `checkout_paid`,
   * `checkout_expired`) is final.
   */
  get retryable(): boolean {
    const { status } = this;
    return (
      status < 300 ||
      status >= 500 ||
      (status === 409 && !this.code.startsWith('checkout_')) ||
      status === 429
    );
  }
}

/** Any failure of a call as a CheckoutRequestError: an unexpected one counts as an answer we cannot read. */
export function asRequestError(error: unknown): CheckoutRequestError {
  return error instanceof CheckoutRequestError
    ? error
    : new CheckoutRequestError(0, 'invalid_answer', String((error as Error)?.message ?? error));
}

/** Extra tries of a create: a few over about eight seconds, long enough for a phone changing cells. */
export const CREATE_RETRIES = 4;
/** First backoff of a create retry; it doubles each try. */
export const CREATE_RETRY_BASE_MS = 700;
/** Longest backoff between two create tries. */
export const CREATE_RETRY_MAX_MS = 8_000;
/** A `Retry-After` longer than this ends the automatic retries: the shopper decides when to try again. */
export const MAX_RETRY_AFTER_MS = 30_000;
/** A request (answer body included) slower than this counts as no answer. */
export const REQUEST_TIMEOUT_MS = 20_000;

/** What `price-url` is asked about: the page's cart, or a server-created checkout by its client secret. */
export type PriceRequest = { cart: unknown } | { checkout: string };

/** Options every call takes. */
export interface RequestOptions {
  /** Aborts the call, its retries and their waits. */
  signal?: AbortSignal;
  /** Defaults to the global `fetch`, looked up at call time, so a page may wrap `fetch` later. */
  fetch?: typeof fetch;
  /** Defaults to REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Extra tries of a create; CREATE_RETRIES by default. */
  retries?: number;
}

/**
 * `POST {create-url}` with the intent, already serialised so every retry
 * sends the very same bytes under the same `Idempotency-Key`. Retries no
 * answer, an unreadable answer, `5xx`, `409` and `429` (after `Retry-After`).
 */
export async function createOrder(
  url: string,
  body: string,
  idempotencyKey: string,
  options: RequestOptions = {},
): Promise<CreateAnswer> {
  const headers = { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey };
  for (let attempt = 0; ; attempt++) {
    try {
      return await postJson(url, body, headers, options, readCreateAnswer);
    } catch (error) {
      const retryAfterMs = (error as CheckoutRequestError).retryAfterMs ?? 0;
      // A new price is the shopper's to see before any retry: no prompt was sent.
      if (
        !(error instanceof CheckoutRequestError && error.retryable) ||
        error.amount ||
        attempt >= (options.retries ?? CREATE_RETRIES) ||
        retryAfterMs > MAX_RETRY_AFTER_MS
      ) {
        if (attempt) (error as CheckoutRequestError).retried = true;
        throw error;
      }
      // Half of each wait is random, so that many phones coming back online do not retry in step.
      const backoff = equalJitterDelay(attempt, CREATE_RETRY_BASE_MS, CREATE_RETRY_MAX_MS);
      await sleep(Math.max(backoff, retryAfterMs), options.signal);
    }
  }
}

/** `POST {lookup-url}` with the order id and its lookup token, once: the poller paces the retries. */
export function lookupOrder(
  url: string,
  request: LookupRequest,
  options: RequestOptions = {},
): Promise<LookupAnswer> {
  return postJson(url, JSON.stringify(request), {}, options, readLookupAnswer);
}

/**
 * `POST {price-url}` with `{ cart }`, or `{ checkout }` for a server-created
 * checkout, once: what the relay will charge for it, before any prompt.
 */
export function priceCart(
  url: string,
  body: PriceRequest,
  options: RequestOptions = {},
): Promise<PriceAnswer> {
  return postJson(url, JSON.stringify(body), {}, options, readPriceAnswer);
}

/** `POST` of a JSON body with `extraHeaders`, read by `read`; every failure a CheckoutRequestError. */
async function postJson<T>(
  url: string,
  body: string,
  extraHeaders: Record<string, string>,
  options: RequestOptions,
  read: (json: unknown) => T | undefined,
): Promise<T> {
  const { signal } = options;
  signal?.throwIfAborted();
  // Our own controller adds a time limit: on a stalled mobile connection a
  // request can hang for minutes, and hanging is worse than retrying.
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal?.addEventListener('abort', abort);
  const timer = setTimeout(abort, options.timeoutMs ?? REQUEST_TIMEOUT_MS);
  let response: Response;
  let text: string;
  try {
    response = await (options.fetch ?? globalThis.fetch)(url, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...extraHeaders },
      body,
      signal: controller.signal,
    });
    text = await response.text();
  } catch {
    signal?.throwIfAborted();
    throw new CheckoutRequestError(0, 'network_error', `No answer from ${url}.`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
  }
  const json = parseJson(text);
  if (!response.ok) throw errorFromAnswer(response, json);
  const answer = read(json);
  if (!answer) {
    throw new CheckoutRequestError(response.status, 'invalid_answer', `Unexpected answer from ${url}.`);
  }
  return answer;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An error status as the relay described it, or by its number when the body is not the error shape. */
function errorFromAnswer({ status, headers }: Response, json: unknown): CheckoutRequestError {
  const error = readErrorBody(json);
  return new CheckoutRequestError(
    status,
    error?.code ?? `http_${status}`,
    error?.message ?? `The relay answered ${status}.`,
    error?.param,
    parseRetryAfter(headers.get('Retry-After')),
    // Only a `409` `amount_changed` carries one, beside its error.
    readAmount((json as { amount?: unknown } | undefined)?.amount),
  );
}

/** `Retry-After` in milliseconds: the relay sends seconds; an HTTP date counts as absent. */
export function parseRetryAfter(value: string | null): number | undefined {
  return value && /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : undefined;
}
