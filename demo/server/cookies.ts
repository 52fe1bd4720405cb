/** Reading a request's cookies, for the demo's HttpOnly cookies (the cart session, the phone's token). */

/** The value of cookie `name` in the request, if sent. */
export function cookieOf(request: Request, name: string): string | undefined {
  for (const pair of (request.headers.get('cookie') ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals !== -1 && pair.slice(0, equals).trim() === name) return pair.slice(equals + 1).trim();
  }
  return undefined;
}
