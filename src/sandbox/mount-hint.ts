/**
 * Why a request for a sandbox endpoint missed: the sandbox is mounted under
 * one prefix and its `basePath` names another. A framework that cuts the
 * prefix off (a mount, a proxy's rewrite) or a `basePath` left out gives a
 * `404` and, through the relay, a `502` in the browser; this says so, in the
 * `404`'s message and once on the server console, with the fix.
 */

/** A prefix worth naming back: a plain path of a sensible length, like a `basePath`. */
const PLAIN_PREFIX = /^(?:\/[A-Za-z0-9._~-]+)*$/;
const MAX_PREFIX_LENGTH = 100;

/**
 * The fix, when `path` is one of `endpoints` under another prefix than
 * `basePath`; undefined for any other path (a plain 404).
 */
export function misplacedMountHint(
  path: string,
  basePath: string,
  endpoints: Iterable<string>,
): string | undefined {
  for (const endpoint of endpoints) {
    if (!path.endsWith(endpoint)) continue;
    const prefix = path.slice(0, -endpoint.length);
    if (prefix === basePath || prefix.length > MAX_PREFIX_LENGTH || !PLAIN_PREFIX.test(prefix)) continue;
    const under = basePath === '' ? 'at the root (no basePath)' : `under basePath "${basePath}"`;
    if (prefix === '') {
      return (
        `This sandbox answers ${under}, but this request for ${endpoint} came without it: ` +
        'something in front of the sandbox cut the prefix off. Pass the whole path on, ' +
        'or create the sandbox with basePath: "".'
      );
    }
    return (
      `This sandbox answers ${under}, but this request for ${endpoint} came under "${prefix}": ` +
      `create it with createSandbox({ basePath: "${prefix}" }), the prefix it is mounted under.`
    );
  }
  return undefined;
}
