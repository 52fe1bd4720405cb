/**
 * Checks a service key before anything is sent with it, with
 * messages that never quote the key, and scrubs it from any text that could
 * reach an error or a log.
 */
import { PUBLISHABLE_KEY_PREFIXES, SECRET_KEY_PREFIXES } from '../../shared/service-contract.js';

// Printable ASCII only: a header value with anything else makes fetch throw a
// TypeError that quotes the whole header, key included.
const SECRET_KEY_PATTERN = /^sk_(?:test|live)_[\x21-\x7e]+$/;

/**
 * Throws a TypeError, naming `owner` and never the key, unless `key` is a
 * secret key (`sk_test_…` or `sk_live_…`).
 */
export function assertSecretKey(key: unknown, owner: string): asserts key is string {
  if (key === undefined || key === null || key === '') {
    throw new TypeError(
      `${owner}: secretKey is required. Give the service's secret key (${SECRET_KEY_PREFIXES.join('… or ')}…), read on the server, for example from an environment variable.`,
    );
  }
  if (typeof key !== 'string') {
    throw new TypeError(`${owner}: secretKey must be a string (${SECRET_KEY_PREFIXES.join('… or ')}…).`);
  }
  if (PUBLISHABLE_KEY_PREFIXES.some((prefix) => key.startsWith(prefix))) {
    throw new TypeError(
      `${owner}: secretKey is a publishable key (pk_…). Publishable keys cannot create orders; give the secret key (sk_…), and keep it on the server.`,
    );
  }
  if (!SECRET_KEY_PATTERN.test(key)) {
    throw new TypeError(
      `${owner}: secretKey is not a secret key. It must start with ${SECRET_KEY_PREFIXES.join(' or ')} and hold no spaces or other characters outside printable ASCII.`,
    );
  }
}

/** `text` with every occurrence of `secret` replaced by `[redacted]`. */
export function redactSecret(text: string, secret: string): string {
  return secret !== '' && text.includes(secret) ? text.split(secret).join('[redacted]') : text;
}
