/**
 * CORS for an element served from another origin than the relay:
 * only the listed origins, only POST, only the two headers the element sends.
 * Nothing by default: same-origin needs no CORS.
 */

import { errorResponse } from '../http/http-error.js';
import { SECURITY_HEADERS } from '../http/json-response.js';
import { IDEMPOTENCY_KEY_HEADER, RETRY_AFTER_HEADER } from '../shared/service-contract.js';

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The CORS side of the relay. */
export interface CorsPolicy {
  /** The allowed origins, each as its URL's origin (`https://shop.example`). */
  readonly origins: ReadonlySet<string>;
  /** Headers to add to an answer to `request`: empty unless its Origin is allowed. */
  headersFor(request: Request): Record<string, string>;
  /** The answer to an `OPTIONS` preflight. */
  preflight(request: Request): Response;
}

/**
 * A policy for `allowedOrigins` (`https://shop.example`, scheme, host and port).
 * Throws a TypeError at startup for an entry that is not an origin.
 */
export function createCorsPolicy(allowedOrigins: readonly string[] = []): CorsPolicy {
  const allowed = new Set(allowedOrigins.map(normalizeOrigin));
  // The answer depends on Origin once any is allowed, so caches must key on it.
  const vary: Record<string, string> = allowed.size > 0 ? { vary: 'Origin' } : {};

  function allowedOrigin(request: Request): string | undefined {
    // Same-origin only (the default): no header to read.
    if (allowed.size === 0) return undefined;
    const origin = request.headers.get('origin');
    return origin !== null && allowed.has(origin) ? origin : undefined;
  }

  return {
    origins: allowed,
    headersFor(request) {
      const origin = allowedOrigin(request);
      if (origin === undefined) return vary;
      return {
        ...vary,
        'access-control-allow-origin': origin,
        // The element reads Retry-After to time its retry after a 429.
        'access-control-expose-headers': RETRY_AFTER_HEADER,
      };
    },
    preflight(request) {
      const origin = allowedOrigin(request);
      if (origin === undefined) {
        return errorResponse('permissionDenied', 'This origin may not call the checkout.', { headers: vary });
      }
      return new Response(null, {
        status: 204,
        headers: {
          ...SECURITY_HEADERS,
          ...vary,
          'access-control-allow-origin': origin,
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': `Content-Type, ${IDEMPOTENCY_KEY_HEADER}`,
          'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
        },
      });
    },
  };
}

function normalizeOrigin(entry: string): string {
  const url = URL.canParse(entry) ? new URL(entry) : undefined;
  const isOrigin =
    url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    !entry.includes('*');
  if (!isOrigin) {
    throw new TypeError(
      `createCheckoutRelay: allowedOrigins entries are origins such as https://shop.example (scheme, host, optional port; no path, no wildcard); got ${JSON.stringify(entry)}.`,
    );
  }
  return url.origin;
}
