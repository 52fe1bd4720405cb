/**
 * API keys, applications and sessions, as the service's interface describes them: every
 * request carries `Authorization: Bearer <key>`; the key links to an
 * application; a multi-use session of about 60 minutes is created on first
 * use, cached, and created anew once expired.
 */
import { ID_PREFIX, SESSION_LIFETIME_MS } from '../shared/service-contract.js';
import { randomId } from './random-id.js';

/** The sandbox's default keys. */
export const SANDBOX_KEYS = {
  secret: 'sk_test_sandbox',
  publishable: 'pk_test_sandbox',
  readOnly: 'sk_test_readonly',
} as const;

/** Operations a key may be allowed ("restricted permissions"; the names are ours). */
export const PERMISSIONS = ['orders:write', 'orders:read', 'otp:read', 'chimes:read'] as const;
/** One operation a key may be allowed. */
export type Permission = (typeof PERMISSIONS)[number];

const READ_PERMISSIONS: readonly Permission[] = ['orders:read', 'otp:read', 'chimes:read'];

/** The application record every default key links to. */
export const SANDBOX_APPLICATION: ApplicationRecord = { id: 'app_sandbox', name: 'Sandbox Shop' };

/** An application, as a key links to it. */
export interface ApplicationRecord {
  id: string;
  name: string;
}

/** What {@link KeyRegistry.add} takes: a test-mode key and what it may do. */
export interface ApiKeyInput {
  /** `sk_test_…` (secret) or `pk_test_…` (publishable); live keys are refused. */
  key: string;
  /** Default: the sandbox's own application, "Sandbox Shop". */
  application?: ApplicationRecord;
  /** Default: every permission for a secret key. A publishable key never has any. */
  permissions?: readonly Permission[];
  /** Clock time (ms) from which the key is expired. */
  expiresAt?: number;
}

/** The application context a session holds. */
export interface ApplicationContext {
  id: string;
  name: string;
  permissions: readonly Permission[];
}

/** A session created for a key on first use. */
export interface Session {
  id: string;
  application: ApplicationContext;
  createdAt: number;
  expiresAt: number;
  multiUse: true;
}

/** The outcome of checking a request's `Authorization` header. */
export type AuthenticationResult =
  | { ok: true; apiKey: string; session: Session }
  | { ok: false; kind: 'authenticationFailed' | 'permissionDenied'; message: string };

interface ApiKeyRecord {
  key: string;
  publishable: boolean;
  application: ApplicationRecord;
  permissions: readonly Permission[];
  expiresAt: number | undefined;
}

// Exactly "Bearer", one space, the key; anything else is 401.
const BEARER_PATTERN = /^Bearer ([^\s]+)$/;
const LIVE_KEY_PATTERN = /^(?:sk|pk)_live_/;
const TEST_KEY_PATTERN = /^(sk|pk)_test_[A-Za-z0-9_]+$/;

/** The keys the sandbox knows, and the sessions it created for them. */
export class KeyRegistry {
  readonly #keys = new Map<string, ApiKeyRecord>();
  readonly #sessions = new Map<string, Session>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
    this.add({ key: SANDBOX_KEYS.secret });
    this.add({ key: SANDBOX_KEYS.publishable });
    this.add({ key: SANDBOX_KEYS.readOnly, permissions: READ_PERMISSIONS });
  }

  /** Adds (or replaces) a test-mode key; throws for a live or malformed key. */
  add(input: ApiKeyInput): void {
    if (LIVE_KEY_PATTERN.test(input.key)) {
      throw new TypeError('The sandbox runs in test mode only: live keys cannot be added.');
    }
    const match = TEST_KEY_PATTERN.exec(input.key);
    if (!match) throw new TypeError('A sandbox key starts with sk_test_ or pk_test_.');
    const publishable = match[1] === 'pk';
    this.#keys.set(input.key, {
      key: input.key,
      publishable,
      application: { ...(input.application ?? SANDBOX_APPLICATION) },
      permissions: publishable ? [] : [...(input.permissions ?? PERMISSIONS)],
      expiresAt: input.expiresAt,
    });
    this.#sessions.delete(input.key);
  }

  /** Deletes a key, as the dashboard does; its next use is 401. True if it existed. */
  revoke(key: string): boolean {
    this.#sessions.delete(key);
    return this.#keys.delete(key);
  }

  /** The live (unexpired) session of a key, if it has been used; never creates one. */
  sessionFor(key: string): Session | undefined {
    const session = this.#sessions.get(key);
    return session && session.expiresAt > this.#now() ? session : undefined;
  }

  /**
   * Checks the header and the key, finds or creates its session, and checks
   * that the key may perform `permission`.
   */
  authenticate(authorization: string | null, permission: Permission): AuthenticationResult {
    const match = authorization === null ? null : BEARER_PATTERN.exec(authorization);
    if (!match) {
      return failed('Send the API key in the Authorization header as "Bearer <API_KEY>".');
    }
    const apiKey = match[1] as string;
    // Messages never echo the key: it may be a secret one.
    if (LIVE_KEY_PATTERN.test(apiKey)) {
      return failed('This is a live key; the sandbox runs in test mode only. Use a test key.');
    }
    const record = this.#keys.get(apiKey);
    const now = this.#now();
    if (!record) return failed('The API key is not valid, or it was deleted.');
    if (record.expiresAt !== undefined && now >= record.expiresAt) {
      this.#sessions.delete(apiKey);
      return failed('The API key has expired.');
    }
    const session = this.#sessionOf(record, now);
    if (!session.application.permissions.includes(permission)) {
      return {
        ok: false,
        kind: 'permissionDenied',
        message: record.publishable
          ? 'A publishable key cannot perform server-side operations; use a secret key.'
          : `This API key does not have the ${permission} permission.`,
      };
    }
    return { ok: true, apiKey, session };
  }

  #sessionOf(record: ApiKeyRecord, now: number): Session {
    const cached = this.#sessions.get(record.key);
    if (cached && cached.expiresAt > now) return cached;
    const session: Session = {
      id: randomId(ID_PREFIX.session),
      application: { ...record.application, permissions: record.permissions },
      createdAt: now,
      expiresAt: now + SESSION_LIFETIME_MS,
      multiUse: true,
    };
    this.#sessions.set(record.key, session);
    return session;
  }
}

function failed(message: string): AuthenticationResult {
  return { ok: false, kind: 'authenticationFailed', message };
}
