/**
 * JSON answers. Every answer here is about money, so none may be cached, and
 * none may be sniffed into anything but JSON.
 */

/** The security headers of every answer, errors and preflights included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** The headers of every JSON answer: its type and the security headers. */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  ...SECURITY_HEADERS,
};

/** A JSON answer with `no-store`; `headers` are added to (or replace) the JSON ones. */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers?: Readonly<Record<string, string>>,
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...lowerCased(headers) },
  });
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const name of Object.keys(headers)) lower[name.toLowerCase()] = headers[name] as string;
  return lower;
}

/**
 * Where the adapter that made a request keeps a faster way to answer it with
 * JSON than a web `Response`: the Node listener's requests carry one
 * (node/light-response.ts); any other request is answered with {@link jsonResponse}.
 */
export const FAST_JSON_ANSWER: unique symbol = Symbol('fastJsonAnswer');

/** An adapter's JSON answer: on the wire what `jsonResponse(body, status)` sends, and a `Response` in every standard use. */
export type FastJsonAnswer = (body: unknown, status: number) => Response;

/** `jsonResponse(body, status)` for an answer to `request`, made the faster way its adapter offers, if any (the Node listener's). */
export function jsonAnswer(request: Request, body: unknown, status = 200): Response {
  const fast = (request as Request & { [FAST_JSON_ANSWER]?: FastJsonAnswer })[FAST_JSON_ANSWER];
  return fast === undefined ? jsonResponse(body, status) : fast(body, status);
}
