/**
 * The secrets of `pay-checkout serve`, read from the environment only, never
 * from its configuration file (which is checked in, copied, pasted into
 * issues). A mistake names the variable and what it expected, never the value.
 */
import { SANDBOX_KEYS } from '../sandbox/authentication.js';
import { assertSecretKey } from '../server/tokens/secret-key.js';
import type { ServeConfig } from './serve-config.js';

/** Shortest merchant API key accepted: a key a backend sends on every call must not be guessable. */
export const API_KEY_MIN_LENGTH = 32;
/** Shortest lookup secret accepted, as the relay's own `lookupSecret`. */
const LOOKUP_SECRET_MIN_LENGTH = 16;

/** The environment variables serve reads. */
export const SERVE_ENVIRONMENT = {
  secretKey: 'PAY_SECRET_KEY',
  apiKey: 'PAY_CHECKOUT_API_KEY',
  lookupSecret: 'PAY_LOOKUP_SECRET',
} as const;

/** What serve takes from the environment. */
export interface ServeSecrets {
  /** The service's secret key; the embedded sandbox's published one without `service`. */
  readonly secretKey: string;
  /** The merchant API's key; `undefined`: `/v1` answers 401 to everyone. */
  readonly apiKey: string | undefined;
  /** The lookup tokens' secret; `undefined`: a random one per process (the relay warns). */
  readonly lookupSecret: string | undefined;
}

/** The secrets, or one line per variable that is wrong (`PAY_SECRET_KEY: expected …`). */
export type SecretsCheck = { ok: true; secrets: ServeSecrets } | { ok: false; errors: string[] };

/** Reads and checks the secrets `config` needs from `env`. */
export function readServeSecrets(config: ServeConfig, env: NodeJS.ProcessEnv): SecretsCheck {
  const errors: string[] = [];
  const given = (name: string) => (env[name] === '' ? undefined : env[name]);
  let secretKey: string = SANDBOX_KEYS.secret;
  if (config.service) {
    const key = given(SERVE_ENVIRONMENT.secretKey);
    try {
      assertSecretKey(key, SERVE_ENVIRONMENT.secretKey);
      secretKey = key;
    } catch {
      errors.push(
        `${SERVE_ENVIRONMENT.secretKey}: expected the payments service's secret key (sk_live_… or sk_test_…), required with "service"`,
      );
    }
  }
  const apiKey = given(SERVE_ENVIRONMENT.apiKey);
  // Printable ASCII only, as the merchant API takes it: a key outside it could never be sent in a header.
  if (apiKey !== undefined && (apiKey.length < API_KEY_MIN_LENGTH || !/^[\x21-\x7e]+$/.test(apiKey))) {
    errors.push(
      `${SERVE_ENVIRONMENT.apiKey}: expected at least ${API_KEY_MIN_LENGTH} printable characters and no spaces (openssl rand -base64 32 makes one)`,
    );
  }
  const lookupSecret = given(SERVE_ENVIRONMENT.lookupSecret);
  if (lookupSecret !== undefined && lookupSecret.length < LOOKUP_SECRET_MIN_LENGTH) {
    errors.push(
      `${SERVE_ENVIRONMENT.lookupSecret}: expected at least ${LOOKUP_SECRET_MIN_LENGTH} characters, the same on every serve process`,
    );
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, secrets: { secretKey, apiKey, lookupSecret } };
}
