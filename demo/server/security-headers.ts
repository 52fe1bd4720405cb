/**
 * Headers every answer of the demo server carries. The policy is the one the
 * README tells merchants to copy: scripts and styles from the page's own
 * origin only, no inline code, no framing, and Trusted Types required so no
 * string can reach an HTML or script sink unvetted (Lit brings its own policy).
 */

/** The Content-Security-Policy of the demo page and every answer of its server. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/** Security headers set on every answer, whatever produced it. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** The answer with {@link SECURITY_HEADERS} set, replacing any the handler set itself. */
export function withSecurityHeaders(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
