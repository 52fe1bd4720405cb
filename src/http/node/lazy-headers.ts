/**
 * The request's `Headers`, read straight from the Node request until someone
 * needs a real one. Building a web `Headers` costs more than the rest of a
 * small handler's reading, and most handlers only `get` a few names. It is
 * `instanceof Headers`; any member other than `get` and `has` builds the real
 * `Headers` first, and from then on the real one is the truth (a middleware
 * may have changed it).
 */
import type { IncomingMessage } from 'node:http';

const RAW = Symbol('rawHeaders');
const REAL = Symbol('realHeaders');

/** HTTP/2 pseudo-headers and hop-by-hop fields are not for the handler. */
export function isHiddenHeader(name: string): boolean {
  return name.startsWith(':') || /^(?:connection|keep-alive|transfer-encoding|upgrade)$/i.test(name);
}

/** A real `Headers` of the Node request, without its hidden fields. */
export function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] as string;
    if (!isHiddenHeader(name)) headers.append(name, raw[index + 1] as string);
  }
  return headers;
}

interface LazyHeadersFields {
  [RAW]: IncomingMessage;
  [REAL]: Headers | undefined;
}

/** The lazy `Headers` of a Node request. */
export function lazyHeaders(incoming: IncomingMessage): Headers {
  const headers = Object.create(LazyHeaders.prototype) as LazyHeadersFields;
  headers[RAW] = incoming;
  headers[REAL] = undefined;
  return headers as unknown as Headers;
}

/** The real `Headers` behind lazy ones (built now if needed), or the argument itself. */
export function realHeaders(headers: Headers): Headers {
  if (!(RAW in headers)) return headers;
  const lazy = headers as unknown as LazyHeadersFields;
  lazy[REAL] ??= headersOf(lazy[RAW]);
  return lazy[REAL];
}

// As Headers.get answers: every value of the name, joined by ", " (Node has trimmed each).
function readRaw(incoming: IncomingMessage, name: string): string | null {
  const wanted = name.toLowerCase();
  if (isHiddenHeader(wanted)) return null;
  const raw = incoming.rawHeaders;
  let value: string | null = null;
  for (let index = 0; index < raw.length; index += 2) {
    if ((raw[index] as string).toLowerCase() !== wanted) continue;
    const next = raw[index + 1] as string;
    value = value === null ? next : `${value}, ${next}`;
  }
  return value;
}

class LazyHeaders {
  get(this: LazyHeadersFields, name: string): string | null {
    const real = this[REAL];
    return real ? real.get(name) : readRaw(this[RAW], String(name));
  }

  has(this: LazyHeadersFields, name: string): boolean {
    const real = this[REAL];
    return real ? real.has(name) : readRaw(this[RAW], String(name)) !== null;
  }
}

Object.setPrototypeOf(LazyHeaders.prototype, Headers.prototype);
// Everything else Headers has is the real one's: forEach, entries, set, getSetCookie, iteration…
for (const key of Reflect.ownKeys(Headers.prototype)) {
  if (key === 'constructor' || key === 'get' || key === 'has' || key === Symbol.toStringTag) continue;
  const descriptor = Object.getOwnPropertyDescriptor(Headers.prototype, key);
  if (typeof descriptor?.value !== 'function') continue;
  Object.defineProperty(LazyHeaders.prototype, key, {
    configurable: true,
    writable: true,
    value(this: Headers, ...args: unknown[]) {
      const real = realHeaders(this);
      return (Reflect.get(real, key) as (...params: unknown[]) => unknown).apply(real, args);
    },
  });
}
