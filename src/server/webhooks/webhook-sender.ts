/**
 * One webhook attempt on Node: a POST through undici that never throws and
 * answers what the journal keeps of it (status, duration, `Retry-After`,
 * error). Redirects are not followed (a 3xx is a failed attempt), and the
 * whole attempt, body included, is cut at `timeoutMs`.
 *
 * No server-side request forgery: unless private targets are allowed, the
 * target's name is resolved inside the connection's own `lookup`
 * (guarded-lookup.ts), every address is checked there, and the socket
 * connects to the address that was checked: no DNS rebinding between the
 * check and the connect. Literal addresses (`net.connect` never looks them
 * up) are checked before anything is sent. Proxies from
 * the environment are not used: behind one, the address could not be checked.
 */
import { isIP } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';
import { createGuardedLookup, RefusedTargetError } from './guarded-lookup.js';
import { parseRetryAfter } from './retry-after.js';
import { describeAddressKind, refusedAddressKind } from './target-address.js';

/** Default limit of one attempt: 15 seconds. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;

/** Most bytes of a receiver's answer read before the connection is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What is sent. */
export interface WebhookRequest {
  /** The endpoint, `https://` or `http://`. */
  url: string;
  /** The Standard Webhooks headers and any others; `content-type` defaults to JSON. */
  headers: Record<string, string>;
  /** The JSON body exactly as signed. */
  body: string;
}

/** Options of {@link sendWebhook}. */
export interface SendWebhookOptions {
  /** Lets targets in private, loopback and link-local ranges through (development only). Default false. */
  allowPrivateTargets?: boolean;
  /** Limit of the whole attempt in ms. Default 15 000. */
  timeoutMs?: number;
  /** The clock for an HTTP-date `Retry-After` (epoch ms). Default `Date.now`. */
  now?: () => number;
}

/** What one attempt came to. */
export interface WebhookAttemptResult {
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  status: number | null;
  /** Time the attempt took, in ms. */
  durationMs: number;
  /** The wait a failed answer's `Retry-After` asked for (1 s..24 h), else null. */
  retryAfterMs: number | null;
  /** Why the attempt failed, for the journal and operators (never a secret); null for any HTTP answer but a 3xx. */
  error: string | null;
}

let guardedAgent: Dispatcher | undefined;
let openAgent: Dispatcher | undefined;

/** The pool for targets that are checked, or for any target when private ones are allowed. */
function agentFor(allowPrivateTargets: boolean): Dispatcher {
  if (allowPrivateTargets) {
    openAgent ??= new Agent({ connections: 64 });
    return openAgent;
  }
  guardedAgent ??= new Agent({ connections: 64, connect: { lookup: createGuardedLookup() } });
  return guardedAgent;
}

/** Why `url` may not be sent to before any connection, or null. */
function refusalBeforeConnect(url: URL, allowPrivateTargets: boolean): string | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `target refused: ${url.protocol} is not http(s)`;
  if (url.username || url.password) return 'target refused: the URL carries credentials';
  if (allowPrivateTargets) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return null;
  const kind = refusedAddressKind(host);
  return kind ? `target refused: ${host} is ${describeAddressKind(kind)}` : null;
}

/** The text of an attempt's failure, from undici's error (its cause says more). */
function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs} ms`;
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof RefusedTargetError) return current.message;
    if (!(current.cause instanceof Error)) break;
    current = current.cause;
  }
  const cause = current instanceof Error ? current : new Error(String(error));
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
}

/** Sends one attempt and answers what it came to; never throws. */
export async function sendWebhook(
  webhook: WebhookRequest,
  options: SendWebhookOptions = {},
): Promise<WebhookAttemptResult> {
  const { allowPrivateTargets = false, timeoutMs = DEFAULT_WEBHOOK_TIMEOUT_MS, now = Date.now } = options;
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  let url: URL;
  try {
    url = new URL(webhook.url);
  } catch {
    return { status: null, durationMs: elapsed(), retryAfterMs: null, error: 'target refused: not a URL' };
  }
  const refusal = refusalBeforeConnect(url, allowPrivateTargets);
  if (refusal) return { status: null, durationMs: elapsed(), retryAfterMs: null, error: refusal };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const answer = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...webhook.headers },
      body: webhook.body,
      dispatcher: agentFor(allowPrivateTargets),
      signal: controller.signal,
    });
    await answer.body.dump({ limit: MAX_ANSWER_BYTES, signal: controller.signal }).catch(() => undefined);
    const status = answer.statusCode;
    const failed = status < 200 || status > 299;
    const retryAfter = answer.headers['retry-after'];
    return {
      status,
      durationMs: elapsed(),
      retryAfterMs: failed
        ? parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now())
        : null,
      error: status >= 300 && status < 400 ? `redirect not followed (${status})` : null,
    };
  } catch (error) {
    return {
      status: null,
      durationMs: elapsed(),
      retryAfterMs: null,
      error: describeFailure(error, timedOut, timeoutMs),
    };
  } finally {
    clearTimeout(timer);
  }
}
