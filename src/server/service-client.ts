/**
 * A typed, validated client for the payments service (spec §4, §5, §7):
 * bearer authentication, idempotency keys on writes, time-outs, retries with
 * the same key and full-jitter backoff, and typed errors. Web-standard only
 * (fetch, AbortSignal, crypto.randomUUID), so it runs on Node and edge runtimes.
 */
import type * as z from 'zod/mini';
import { fullJitterDelay, sleep } from '../shared/backoff.js';
import {
  DEFAULT_LIST_PAGE_SIZE,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  LOOKUP_ID_FIELDS,
  REQUEST_ID_HEADER,
  RETRY_AFTER_HEADER,
  SERVICE_ERRORS,
} from '../shared/service-contract.js';
import { issueParam } from '../shared/wire.js';
import { parseRetryAfter } from './retry-after.js';
import { assertSecretKey, redactSecret } from './secret-key.js';
import {
  CLIENT_ERROR_CODES,
  ServiceApiError,
  type ServiceError,
  ServiceInvalidRequestError,
  ServiceNetworkError,
  ServiceRateLimitError,
  ServiceTimeoutError,
  serviceErrorClassFor,
} from './service-errors.js';
import {
  chimeLookupInputSchema,
  type Order,
  type OrderCreateAnswer,
  type OrderCreateInput,
  type OrderLookupAnswer,
  type OrderPageAnswer,
  orderCreateAnswerSchema,
  orderCreateInputSchema,
  orderLookupAnswerSchema,
  orderLookupInputSchema,
  orderPageAnswerSchema,
  orderPageInputSchema,
  otpLookupInputSchema,
  serviceErrorBodySchema,
  type UnshownRecordAnswer,
  unshownRecordAnswerSchema,
} from './service-schemas.js';

/** Options of {@link createServiceClient}. */
export interface ServiceClientOptions {
  /** The service's base URL (spec: `{base_url}`), such as the sandbox's. */
  baseUrl: string;
  /** A secret key, `sk_test_…` or `sk_live_…` (spec §5.2). Publishable keys are refused. */
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

/** Per-call options. */
export interface ServiceRequestOptions {
  /** Cancels the call, retries and waits included; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Per-call options of a write. */
export interface ServiceWriteOptions extends ServiceRequestOptions {
  /**
   * The idempotency key (16–255 of `[A-Za-z0-9_-]`). Give one per logical
   * operation and reuse it to retry; when absent a random UUID is used for
   * this call and its own retries.
   */
  idempotencyKey?: string;
}

/** Which page of orders to read (spec §4). */
export interface OrderPageRequest {
  /** 1-based; page 1 holds the newest orders. */
  pageNumber: number;
  /** 1 to 256. */
  pageSize: number;
}

/** Options of `orders.list()`. */
export interface OrderListOptions extends ServiceRequestOptions {
  /** Orders per page requested. Default 100 (spec §8 recommends 25 to 100). */
  pageSize?: number;
}

/** The typed client {@link createServiceClient} returns. */
export interface ServiceClient {
  orders: {
    /** `POST /orders/new`: creates an order (and starts its payment with `execute_payment`). */
    create(input: OrderCreateInput, options?: ServiceWriteOptions): Promise<OrderCreateAnswer>;
    /** `POST /orders/lookup`: the order with its nested payment. */
    lookup(orderId: string, options?: ServiceRequestOptions): Promise<OrderLookupAnswer>;
    /** `POST /orders/page`: one page of orders, newest first. */
    page(request: OrderPageRequest, options?: ServiceRequestOptions): Promise<OrderPageAnswer>;
    /**
     * Every order, newest first, following the paging rule of spec §4: page
     * after page until one holds fewer than `pageSize`. Orders created while
     * iterating shift the pages, so an order may be seen twice.
     */
    list(options?: OrderListOptions): AsyncIterableIterator<Order>;
  };
  otp: {
    /** `POST /otp/lookup`: the OTP record, whose fields spec §2 does not show. */
    lookup(otpId: string, options?: ServiceRequestOptions): Promise<UnshownRecordAnswer>;
  };
  chimes: {
    /** `POST /chimes/lookup`: the chime record, whose fields spec §2 does not show. */
    lookup(chimeId: string, options?: ServiceRequestOptions): Promise<UnshownRecordAnswer>;
  };
}

/** Default time allowed for one attempt. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 3;
/** Default longest `Retry-After` waited out. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 20_000;
/** Full-jitter backoff between retries: the first waits up to 200 ms, then up to 400, 800… */
export const RETRY_BACKOFF_BASE_MS = 200;
/** …and no retry waits over 5 s. */
export const RETRY_BACKOFF_CAP_MS = 5_000;

interface Call<Output> {
  path: string;
  body: unknown;
  answerSchema: z.ZodMiniType<Output>;
  /** Writes carry an idempotency key, the same on every retry. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/**
 * Creates a client for the service at `baseUrl`. Throws a TypeError at once
 * for a missing, publishable or malformed key, or a bad base URL; the key is
 * never quoted, in that error or any later one.
 */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const secretKey = options.secretKey;
  assertSecretKey(secretKey, 'createServiceClient');
  const baseUrl = normalizeBaseUrl(options.baseUrl, 'createServiceClient');
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = positiveNumber(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const maxRetries = Math.floor(nonNegativeNumber(options.maxRetries, DEFAULT_MAX_RETRIES, 'maxRetries'));
  const maxRetryAfterMs = nonNegativeNumber(
    options.maxRetryAfterMs,
    DEFAULT_MAX_RETRY_AFTER_MS,
    'maxRetryAfterMs',
  );
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? sleep;
  // Built once and kept in this closure only: no property of the client or of any error holds it.
  const authorization = `Bearer ${secretKey}`;
  const redact = (text: string) => redactSecret(text, secretKey);

  async function call<Output>(request: Call<Output>): Promise<Output> {
    for (let retry = 0; ; retry++) {
      request.signal?.throwIfAborted();
      try {
        return await attempt(request);
      } catch (error) {
        if (!isRetryable(error) || retry >= maxRetries) throw error;
        let delay = fullJitterDelay(retry, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS, random);
        if (error instanceof ServiceRateLimitError && error.retryAfterMs !== undefined) {
          if (error.retryAfterMs > maxRetryAfterMs) throw error;
          delay = Math.max(delay, error.retryAfterMs);
        }
        await wait(delay, request.signal);
      }
    }
  }

  async function attempt<Output>(request: Call<Output>): Promise<Output> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const headers: Record<string, string> = {
      authorization,
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (request.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = request.idempotencyKey;
    try {
      let response: Response;
      let text: string;
      try {
        response = await fetchImpl(`${baseUrl}${request.path}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(request.body),
          signal: controller.signal,
        });
        // Read inside the same guard: a connection cut mid-body is a network failure, and the time-out covers it.
        text = await response.text();
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason;
        if (timedOut) {
          throw new ServiceTimeoutError({
            status: 0,
            ...CLIENT_ERROR_CODES.timeout,
            message: `The service did not answer ${request.path} within ${timeoutMs} ms.`,
          });
        }
        throw new ServiceNetworkError({
          status: 0,
          ...CLIENT_ERROR_CODES.network,
          message: `The request to ${request.path} failed on the network: ${redact(describe(error))}.`,
          cause: scrubbedCause(error, secretKey),
        });
      }
      return interpret(request, response, text);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  function interpret<Output>(request: Call<Output>, response: Response, text: string): Output {
    // Headers are read only for an error: on Node a lazily built Headers is then never built.
    const requestIdOf = () => response.headers.get(REQUEST_ID_HEADER) ?? undefined;
    const json = parseJson(text);
    if (response.ok) {
      if (json === undefined) {
        throw invalidResponse(
          response.status,
          `The service's answer to ${request.path} is not JSON.`,
          requestIdOf(),
        );
      }
      const parsed = request.answerSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue ? `${issueParam(issue) || '(root)'}: ${issue.message}` : 'unknown';
        throw invalidResponse(
          response.status,
          redact(`The service's answer to ${request.path} is not the documented shape (${where}).`),
          requestIdOf(),
        );
      }
      return parsed.data;
    }
    throw errorFromAnswer(request.path, response, json, requestIdOf());
  }

  function errorFromAnswer(
    path: string,
    response: Response,
    json: unknown,
    requestId?: string,
  ): ServiceError {
    const status = response.status;
    const fallback = Object.values(SERVICE_ERRORS).find((entry) => entry.status === status);
    const body = serviceErrorBodySchema.safeParse(json);
    const details = {
      status,
      code: body.success ? body.data.error.code : (fallback?.code ?? `http_${status}`),
      type: body.success ? body.data.error.type : (fallback?.type ?? 'api_error'),
      message: redact(
        body.success ? body.data.error.message : `The service answered ${path} with HTTP ${status}.`,
      ),
      ...(body.success && body.data.error.param !== undefined
        ? { param: redact(body.data.error.param) }
        : {}),
      ...(requestId === undefined ? {} : { requestId }),
    };
    const ErrorClass = serviceErrorClassFor(status);
    if (ErrorClass === ServiceRateLimitError) {
      const retryAfterMs = parseRetryAfter(response.headers.get(RETRY_AFTER_HEADER));
      return new ServiceRateLimitError(retryAfterMs === undefined ? details : { ...details, retryAfterMs });
    }
    return new ErrorClass(details);
  }

  function validated<Input>(schema: z.ZodMiniType<Input>, input: unknown): Input {
    const parsed = schema.safeParse(input);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw invalidInput(issue ? issueParam(issue) : '', redact(issue?.message ?? 'Invalid request.'));
  }

  function page(request: OrderPageRequest, options: ServiceRequestOptions = {}): Promise<OrderPageAnswer> {
    const body = validated(orderPageInputSchema, {
      page_number: request.pageNumber,
      page_size: request.pageSize,
    });
    return call({ path: '/orders/page', body, answerSchema: orderPageAnswerSchema, signal: options.signal });
  }

  async function* list(options: OrderListOptions = {}): AsyncGenerator<Order, void, undefined> {
    const pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
    for (let pageNumber = 1; ; pageNumber++) {
      const answer = await page({ pageNumber, pageSize }, { signal: options.signal });
      yield* answer.page.orders;
      // The paging rule of spec §4: a short page is the last one.
      if (answer.page.orders.length < pageSize) return;
    }
  }

  return {
    orders: {
      create(input, options = {}) {
        return guard(() => {
          const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
          if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
            throw invalidInput(
              IDEMPOTENCY_KEY_HEADER,
              'An idempotency key is 16 to 255 characters of A-Z a-z 0-9 _ -.',
            );
          }
          const body = validated(orderCreateInputSchema, input);
          return call({
            path: '/orders/new',
            body,
            answerSchema: orderCreateAnswerSchema,
            idempotencyKey,
            signal: options.signal,
          });
        });
      },
      lookup(orderId, options = {}) {
        return lookupBy(
          '/orders/lookup',
          LOOKUP_ID_FIELDS.orders,
          orderId,
          orderLookupInputSchema,
          options,
          orderLookupAnswerSchema,
        );
      },
      page: (request, options) => guard(() => page(request, options)),
      list,
    },
    otp: {
      lookup(otpId, options = {}) {
        return lookupBy(
          '/otp/lookup',
          LOOKUP_ID_FIELDS.otp,
          otpId,
          otpLookupInputSchema,
          options,
          unshownRecordAnswerSchema,
        );
      },
    },
    chimes: {
      lookup(chimeId, options = {}) {
        return lookupBy(
          '/chimes/lookup',
          LOOKUP_ID_FIELDS.chimes,
          chimeId,
          chimeLookupInputSchema,
          options,
          unshownRecordAnswerSchema,
        );
      },
    },
  };

  function lookupBy<Output>(
    path: string,
    field: string,
    id: string,
    inputSchema: z.ZodMiniType<unknown>,
    options: ServiceRequestOptions,
    answerSchema: z.ZodMiniType<Output>,
  ): Promise<Output> {
    return guard(() => {
      const body = validated(inputSchema, { [field]: id });
      return call({ path, body, answerSchema, signal: options.signal });
    });
  }
}

/** Runs `start`, turning a synchronous throw (bad input) into a rejected promise. */
function guard<Output>(start: () => Promise<Output>): Promise<Output> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}

function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'retryable' in error && error.retryable === true;
}

function invalidInput(param: string, message: string): ServiceInvalidRequestError {
  // Found before sending: the same class and status the service would answer with.
  return new ServiceInvalidRequestError({ ...SERVICE_ERRORS.invalidRequest, message, param });
}

function invalidResponse(status: number, message: string, requestId?: string): ServiceApiError {
  return new ServiceApiError({
    status,
    ...CLIENT_ERROR_CODES.invalidResponse,
    message,
    ...(requestId === undefined ? {} : { requestId }),
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** The network error to keep as `cause`, rebuilt without the key if it quotes it anywhere. */
function scrubbedCause(error: unknown, secretKey: string): unknown {
  const text =
    error instanceof Error ? `${error.message}\n${error.stack}\n${describe(error.cause)}` : String(error);
  return text.includes(secretKey) ? new Error(redactSecret(describe(error), secretKey)) : error;
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
  if (!(Number.isFinite(value) && value > 0))
    throw new TypeError(`createServiceClient: ${name} must be a positive number.`);
  return value;
}

function nonNegativeNumber(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new TypeError(`createServiceClient: ${name} must be zero or a positive number.`);
  }
  return value;
}
