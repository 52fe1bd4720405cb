/**
 * `verifyWebhook` for a JavaScript receiver: the Standard Webhooks check of a
 * delivery before anything in it is trusted. The signature is recomputed over
 * the raw body as received (parsing and re-serialising the JSON would change
 * its bytes), each `v1` signature of the header is compared with it in
 * constant time, and a timestamp more than five minutes from the receiver's
 * clock is refused, so a captured delivery cannot be replayed later. Runs on
 * Node and on web runtimes alike.
 */
import { timingSafeCompare } from '../tokens/timing-safe-compare.js';
import { base64Decode } from './base64.js';
import { signedContent, WEBHOOK_SIGNATURE_VERSION, webhookKeys } from './webhook-signature.js';

/** How far a delivery's timestamp may be from the receiver's clock, either way: five minutes. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_body';

/** A delivery that is not ours, not intact or not fresh; `reason` says which. Answer it with a 4xx. */
export class WebhookVerificationError extends Error {
  /** Why the delivery was refused. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** A verified event: `type`, `timestamp` (ISO 8601) and `data` as sent. */
export interface VerifiedWebhookEvent<Data = Record<string, unknown>> {
  /** `order.paid`, `order.failed`, `order.expired`, or `ping` for a test. */
  type: string;
  /** When the event happened, ISO 8601. */
  timestamp: string;
  /** The order in snake_case (empty for a `ping`). */
  data: Data;
}

/** A request's headers: a web `Headers`, or a plain object (Node's `req.headers`, any case). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** The receiver's clock (a Date or epoch milliseconds). Default: now. */
  now?: Date | number;
}

/** The raw body as received. */
export type WebhookRawBody = string | Uint8Array | ArrayBuffer;

/** The value of header `name` in `headers`, whatever its case; undefined when absent. */
function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(' ');
  }
  return undefined;
}

/** The body as bytes, exactly as received. */
function bytesOf(rawBody: WebhookRawBody): Uint8Array<ArrayBuffer> {
  if (typeof rawBody === 'string') return new TextEncoder().encode(rawBody);
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  if (rawBody instanceof Uint8Array) return new Uint8Array(rawBody);
  throw new TypeError(
    'verifyWebhook: rawBody must be the body as received (a string, Uint8Array, Buffer or ArrayBuffer).',
  );
}

/** Throws unless the unix-seconds `timestamp` is within the tolerance of `now`. */
function checkTimestamp(timestamp: string, now: Date | number | undefined): void {
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not unix seconds.');
  }
  const nowSeconds = Math.floor((now === undefined ? Date.now() : Number(now)) / 1000);
  const age = nowSeconds - Number(timestamp);
  if (age > WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      'webhook-timestamp is more than five minutes old.',
    );
  }
  if (age < -WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      'webhook-timestamp is more than five minutes ahead.',
    );
  }
}

/** The 32-byte `v1` signatures of a `webhook-signature` header (others skipped). */
function presentedSignatures(header: string): Uint8Array[] {
  const signatures: Uint8Array[] = [];
  for (const entry of header.split(' ').slice(0, 32)) {
    const [version, signature] = entry.split(',', 2);
    if (version !== WEBHOOK_SIGNATURE_VERSION || !signature) continue;
    const bytes = base64Decode(signature);
    if (bytes?.byteLength === 32) signatures.push(bytes);
  }
  return signatures;
}

/** The body as JSON, once it is known to be ours. */
function parseEvent<Data>(body: Uint8Array): VerifiedWebhookEvent<Data> {
  try {
    const event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) as unknown;
    if (event !== null && typeof event === 'object' && !Array.isArray(event))
      return event as VerifiedWebhookEvent<Data>;
  } catch {
    // Answered below: a signed body that is not a JSON object.
  }
  throw new WebhookVerificationError('invalid_body', 'The webhook body is not a JSON object.');
}

/**
 * Verifies a delivery and returns its event. `secret` is the endpoint's
 * `whsec_…` secret, or several during a rotation (any one verifies);
 * `rawBody` is the body exactly as received, before any JSON parsing.
 * Rejects with a {@link WebhookVerificationError} (answer 400 or 401) when a
 * header is missing, the timestamp is over five minutes off, or no signature
 * matches; with a TypeError when a secret is not `whsec_…`.
 */
export async function verifyWebhook<Data = Record<string, unknown>>(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: WebhookRawBody,
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhookEvent<Data>> {
  const keys = webhookKeys(secret, 'verifyWebhook: secret');
  const body = bytesOf(rawBody);
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signature = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) {
    throw new WebhookVerificationError(
      'missing_headers',
      'The request lacks webhook-id, webhook-timestamp or webhook-signature.',
    );
  }
  checkTimestamp(timestamp, options.now);
  const content = signedContent(id, timestamp, body);
  const expected = await Promise.all(keys.map((sign) => sign(content)));
  const compare = timingSafeCompare();
  let matched = false;
  // Every pair is compared, whatever matched first, so the time taken tells nothing.
  for (const presented of presentedSignatures(signature)) {
    for (const digest of expected) matched = compare(digest, presented) || matched;
  }
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'No webhook signature matches.');
  return parseEvent<Data>(body);
}
