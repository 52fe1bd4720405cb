/**
 * One service call: bearer authentication, the idempotency key, a time-out
 * per attempt (answer body included), and retries with the same key and
 * full-jitter backoff for failures a retry may cure, waiting out a short
 * enough `Retry-After`.
 */
import type * as z from 'zod/mini';
import { type TransportAnswer, TransportTimeoutError } from '../../http/transport.js';
import { fullJitterDelay } from '../../shared/backoff.js';
import { IDEMPOTENCY_KEY_HEADER } from '../../shared/service-contract.js';
import { interpretAnswer } from './service-answer.js';
import type { ServiceClientConfig } from './service-client-config.js';
import {
  CLIENT_ERROR_CODES,
  ServiceError,
  ServiceNetworkError,
  ServiceTimeoutError,
} from './service-errors.js';

/** Full-jitter backoff between retries: the first waits up to 200 ms, then up to 400, 800… */
export const RETRY_BACKOFF_BASE_MS = 200;
/** …and no retry waits over 5 s. */
export const RETRY_BACKOFF_CAP_MS = 5_000;

/** One call to make. */
export interface ServiceCall<Output> {
  path: string;
  body: unknown;
  answerSchema: z.ZodMiniType<Output>;
  /** A check accepting exactly what `answerSchema` does: an accepted answer is returned as parsed, uncopied. */
  isAnswer?: (json: unknown) => boolean;
  /** Writes carry an idempotency key, the same on every retry. */
  idempotencyKey?: string;
  signal?: AbortSignal | undefined;
  /** Sees each answer before it is read, for what only its headers tell (`Idempotent-Replayed`). */
  onAnswer?: (answer: TransportAnswer) => void;
}

/** Makes the call, retrying what a retry may cure; rejects with a {@link ServiceError} or the signal's reason. */
export async function callService<Output>(
  config: ServiceClientConfig,
  call: ServiceCall<Output>,
): Promise<Output> {
  for (let retry = 0; ; retry++) {
    call.signal?.throwIfAborted();
    try {
      const answer = await attempt(config, call);
      call.onAnswer?.(answer);
      return interpretAnswer(call.path, answer, call.answerSchema, config.redact, call.isAnswer);
    } catch (error) {
      if (!(error instanceof ServiceError) || !error.retryable || retry >= config.maxRetries) throw error;
      let delay = fullJitterDelay(retry, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS, config.random);
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > config.maxRetryAfterMs) throw error;
        delay = Math.max(delay, error.retryAfterMs);
      }
      await config.wait(delay, call.signal);
    }
  }
}

/** One attempt within the time-out; a network failure or time-out becomes its {@link ServiceError}. */
async function attempt(config: ServiceClientConfig, call: ServiceCall<unknown>): Promise<TransportAnswer> {
  const headers: Record<string, string> = {
    authorization: config.authorization,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  if (call.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = call.idempotencyKey;
  try {
    return await config.transport({
      url: `${config.baseUrl}${call.path}`,
      method: 'POST',
      headers,
      body: JSON.stringify(call.body),
      timeoutMs: config.timeoutMs,
      signal: call.signal,
    });
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason;
    if (error instanceof TransportTimeoutError) {
      throw new ServiceTimeoutError({
        status: 0,
        ...CLIENT_ERROR_CODES.timeout,
        message: `The service did not answer ${call.path} within ${config.timeoutMs} ms.`,
      });
    }
    throw new ServiceNetworkError({
      status: 0,
      ...CLIENT_ERROR_CODES.network,
      message: `The request to ${call.path} failed on the network: ${config.redact(describe(error))}.`,
      cause: scrubbedCause(error, config),
    });
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
function scrubbedCause(error: unknown, config: ServiceClientConfig): unknown {
  const text =
    error instanceof Error ? `${error.message}\n${error.stack}\n${describe(error.cause)}` : String(error);
  return config.quotesKey(text) ? new Error(config.redact(describe(error))) : error;
}
