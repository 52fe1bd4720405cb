/**
 * The path of an absolute URL such as `Request.url`, as `new URL(url).pathname`
 * gives it, without parsing the URL again: a Request's URL is already parsed
 * and serialised.
 */
export function pathnameOf(url: string): string {
  const pathStart = url.indexOf('/', url.indexOf('://') + 3);
  if (pathStart === -1) return '/';
  let end = url.length;
  const query = url.indexOf('?', pathStart);
  if (query !== -1) end = query;
  const fragment = url.indexOf('#', pathStart);
  if (fragment !== -1 && fragment < end) end = fragment;
  return url.slice(pathStart, end);
}
