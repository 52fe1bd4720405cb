/**
 * Sends one webhook request on Node: undici, no redirect followed (a 3xx is
 * a failed attempt), at most `timeoutMs` for the whole exchange, and a target
 * whose address is private, loopback or link-local refused unless allowed.
 * What the attempt gave is answered, never thrown.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { request } from 'undici';

/** What one attempt gave. */
export interface WebhookSendResult {
  /** The HTTP status, or `null` when no answer came. */
  status: number | null;
  durationMs: number;
  /** The answer's `Retry-After`, within 1 s..24 h, or `null`. */
  retryAfterMs: number | null;
  /** A short description of what went wrong, or `null`. */
  error: string | null;
}

/** The longest `Retry-After` honoured, and the shortest. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const MIN_RETRY_AFTER_MS = 1000;

/** Whether `address` is one no public webhook target has. */
function isPrivateAddress(address: string): boolean {
  const mapped = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(mapped) === 4) {
    const [a = 0, b = 0] = mapped.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168)
    );
  }
  const lower = mapped.toLowerCase();
  return lower === '::' || lower === '::1' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
}

/** `Retry-After` (seconds or an HTTP date) in ms, kept only within 1 s..24 h. */
export function retryAfterMsOf(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  const ms = /^\d+$/.test(text.trim()) ? Number(text.trim()) * 1000 : Date.parse(text) - now;
  return Number.isFinite(ms) && ms >= MIN_RETRY_AFTER_MS && ms <= MAX_RETRY_AFTER_MS ? ms : null;
}

/** Sends `body` with `headers` to `url` by POST; resolves with what the attempt gave. */
export async function sendWebhook(
  { url, headers, body }: { url: string; headers: Record<string, string>; body: string },
  { allowPrivateTargets, timeoutMs = 15_000 }: { allowPrivateTargets: boolean; timeoutMs?: number },
): Promise<WebhookSendResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const { hostname } = new URL(url);
    const host = hostname.replace(/^\[|\]$/g, '');
    const address = isIP(host) ? host : (await lookup(host)).address;
    if (!allowPrivateTargets && isPrivateAddress(address)) {
      return { status: null, durationMs: took(), retryAfterMs: null, error: 'private address refused' };
    }
    const answer = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal,
    });
    await answer.body.dump().catch(() => undefined);
    const redirected = answer.statusCode >= 300 && answer.statusCode < 400;
    return {
      status: answer.statusCode,
      durationMs: took(),
      retryAfterMs: retryAfterMsOf(answer.headers['retry-after']),
      error: redirected ? 'redirect not followed' : null,
    };
  } catch (error) {
    const timedOut = signal.aborted;
    const name = timedOut
      ? 'timed out'
      : error instanceof Error
        ? ((error as { code?: string }).code ?? error.name)
        : 'failed';
    return { status: null, durationMs: took(), retryAfterMs: null, error: name };
  }
}
