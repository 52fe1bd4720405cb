/**
 * What reached the sandbox's service endpoints, newest last and bounded, so a
 * checker of a relay (`pay-checkout check-relay --sandbox`) can see what the
 * relay under test sent the service: whether a re-sent create made a second
 * order, whether a lookup with a forged token was passed on. Each entry holds
 * the endpoint, the status answered and the order id concerned: never a key,
 * a name or a number.
 */
import type { ConnectionInfo } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import { jsonResponse } from '../http/json-response.js';
import { FORWARDING_HEADERS, isLoopbackAddress } from '../http/loopback.js';
import { Deque } from './deque.js';

/** One request a service endpoint answered. */
export interface ReceivedRequest {
  /** Increasing from 1 for the sandbox's life: read the entries after the one you saw last. */
  seq: number;
  /** The endpoint, under the base path: `/orders/new`, `/orders/lookup`… */
  endpoint: string;
  status: number;
  /** The order looked up (as asked) or created (as answered); null when there is none. */
  order_id: string | null;
  /** A create answered from an earlier one under its `Idempotency-Key`: no new order. */
  replayed: boolean;
}

/** Entries kept; past it the oldest goes first. */
const KEPT_REQUESTS = 1000;

/** The bounded log of what reached the service endpoints. */
export class RequestLog {
  readonly #entries = new Deque<ReceivedRequest>();
  #lastSeq = 0;

  /** The sequence number of the newest entry; 0 before any. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Adds an answered request. */
  add(entry: Omit<ReceivedRequest, 'seq'>): void {
    this.#lastSeq += 1;
    this.#entries.push({ seq: this.#lastSeq, ...entry });
    if (this.#entries.length > KEPT_REQUESTS) this.#entries.shift();
  }

  /** The entries newer than `seq`, oldest first. */
  after(seq: number): ReceivedRequest[] {
    const entries: ReceivedRequest[] = [];
    for (let index = 0; index < this.#entries.length; index++) {
      const entry = this.#entries.at(index) as ReceivedRequest;
      if (entry.seq > seq) entries.push(entry);
    }
    return entries;
  }
}

/** The path of the log's read-only route on the control surface, under the base path. */
export const SANDBOX_REQUESTS_PATH = '/_sandbox/requests';

/**
 * `GET …/_sandbox/requests?after=<seq>`: `{ data: [entries after seq], last_seq }`.
 * Loopback callers only, straight (no forwarding header): order ids are no
 * secret, but a sandbox served beyond this machine need not tell its traffic.
 */
export function answerRequestLog(log: RequestLog, request: Request, connection?: ConnectionInfo): Response {
  if (request.method !== 'GET') {
    throw new HttpError('methodNotAllowed', 'Use GET: this route only reads.', { headers: { allow: 'GET' } });
  }
  const forwarded = FORWARDING_HEADERS.some((name) => request.headers.has(name));
  if (!isLoopbackAddress(connection?.clientAddress) || forwarded) {
    throw new HttpError('permissionDenied', 'The request log answers callers on this machine only.');
  }
  const after = new URL(request.url).searchParams.get('after') ?? '0';
  if (!/^\d{1,16}$/.test(after)) {
    throw new HttpError('invalidRequest', 'after must be a whole number: the last seq you read.', {
      param: 'after',
    });
  }
  return jsonResponse({ data: log.after(Number(after)), last_seq: log.lastSeq });
}
