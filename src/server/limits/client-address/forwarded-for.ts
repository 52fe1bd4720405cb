/**
 * The addresses a chain of proxies reports in `X-Forwarded-For` or
 * `Forwarded` (RFC 7239), left (farthest from us) to right (nearest). An
 * entry that is no address (`unknown`, an obfuscated `_node`, garbage) stays
 * in its place as `undefined`: the walk from the right must stop there, not
 * skip over it to an address a client wrote.
 */
import { type IpAddress, parseIpAddress } from './ip-address.js';

/** The header a merchant's proxies write the client address to. */
export type ForwardingHeader = 'x-forwarded-for' | 'forwarded';

/** Most entries read: a longer chain is a client padding the header, and only the right end matters. */
const MAX_ENTRIES = 64;

/** The addresses of `header` in `headers`, left to right; empty when the header is absent. */
export function forwardedAddresses(headers: Headers, header: ForwardingHeader): (IpAddress | undefined)[] {
  const value = headers.get(header);
  if (value === null) return [];
  const entries = splitOutsideQuotes(value).slice(-MAX_ENTRIES);
  return entries.map((entry) => (header === 'forwarded' ? forwardedFor(entry) : hostAddress(entry.trim())));
}

/** The `for=` address of one `Forwarded` element (`for=192.0.2.1;proto=https`). */
function forwardedFor(element: string): IpAddress | undefined {
  for (const pair of element.split(';')) {
    const equals = pair.indexOf('=');
    if (equals === -1 || pair.slice(0, equals).trim().toLowerCase() !== 'for') continue;
    let value = pair.slice(equals + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    return hostAddress(value);
  }
  return undefined;
}

/** The address of `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1` or `[2001:db8::1]:4711`. */
function hostAddress(value: string): IpAddress | undefined {
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    const rest = value.slice(close + 1);
    if (close === -1 || (rest !== '' && !/^:\d{1,5}$/.test(rest))) return undefined;
    const address = parseIpAddress(value.slice(1, close));
    return address?.version === 6 ? address : undefined;
  }
  const withPort = /^([\d.]+):\d{1,5}$/.exec(value);
  return parseIpAddress(withPort ? (withPort[1] as string) : value);
}

/** `a, "b,c", d` as three entries: a quoted `Forwarded` value may hold a comma. */
function splitOutsideQuotes(value: string): string[] {
  const entries: string[] = [];
  let start = 0;
  let quoted = false;
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      entries.push(value.slice(start, index));
      start = index + 1;
    }
  }
  entries.push(value.slice(start));
  return entries;
}
