/**
 * Keeps the current checkout attempt in `sessionStorage` (contract §2,
 * `persist="session"`), so a reload resumes it with the same idempotency key
 * and never offers a fresh form after `paid`. Storage that is missing, full
 * or forbidden (private modes, sandboxed frames) degrades to no persistence.
 */
import { IDEMPOTENCY_KEY_PATTERN, ISSUERS } from '../shared/service-contract.js';
import { type CheckoutState, isCheckoutState } from './checkout-machine.js';
import type { PayCheckoutEventName } from './events.js';

/**
 * True for what `save` wrote. Storage is shared with the page's scripts and
 * with other versions of the element, so what comes back is checked where it
 * matters: the key that guards against double charges and what goes on the wire.
 */
export function isStoredAttempt(value: unknown): value is StoredAttempt {
  if (typeof value !== 'object' || value === null) return false;
  const attempt = value as Record<string, unknown>;
  const isOptionalString = (field: string) => ['string', 'undefined'].includes(typeof attempt[field]);
  return (
    attempt.version === 1 &&
    IDEMPOTENCY_KEY_PATTERN.test(String(attempt.idempotencyKey)) &&
    isCheckoutState(attempt.state) &&
    typeof attempt.startedAt === 'number' &&
    Array.isArray(attempt.fired) &&
    ['body', 'orderId', 'lookupToken', 'localNumber'].every(isOptionalString) &&
    (attempt.issuer === undefined || (ISSUERS as readonly unknown[]).includes(attempt.issuer))
  );
}

/**
 * One checkout attempt: everything a reload needs to carry on, and what the
 * receipt shows. The create `body` (name and number) is kept only until the
 * order exists, to resend the very same request under the same key.
 */
export interface StoredAttempt {
  version: 1;
  /** One per attempt, made before the first create (contract §3). */
  idempotencyKey: string;
  state: CheckoutState;
  /** When the shopper first submitted (ms since the epoch). */
  startedAt: number;
  body?: string;
  orderId?: string;
  lookupToken?: string;
  /** When waiting for the payer gives up: `poll-timeout` after the order was created or checked again. */
  deadline?: number;
  issuer?: (typeof ISSUERS)[number];
  /** The number the prompt went to, local form, for the "approve on your phone" screen. */
  localNumber?: string;
  /** What the shopper was shown, for the receipt. */
  amount?: number;
  currency?: string;
  paymentStatus?: string;
  errorCode?: string;
  retryable?: boolean;
  /** Events already fired for this attempt: each fires at most once, reloads included. */
  fired: PayCheckoutEventName[];
}

/** The storage calls the store uses; `sessionStorage` in the browser, a map in tests. */
export type AttemptStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Reads, writes and clears one attempt under one storage key. */
export class AttemptStore {
  readonly #storage: AttemptStorage | undefined;
  readonly #key: string;

  /** `key` is the `sessionStorage` key, from `attemptStorageKey`. */
  constructor(storage: AttemptStorage | undefined, key: string) {
    this.#storage = storage;
    this.#key = key;
  }

  /** The stored attempt, or undefined when there is none or it is unreadable. */
  load(): StoredAttempt | undefined {
    try {
      // Nothing stored reads as `null`, which no attempt is.
      const json: unknown = JSON.parse(this.#storage?.getItem(this.#key) || 'null');
      return isStoredAttempt(json) ? json : undefined;
    } catch {
      // Storage that throws on access, or a value that is not JSON.
      return undefined;
    }
  }

  /** Stores the attempt; a failing storage leaves the attempt in memory only. */
  save(attempt: StoredAttempt): void {
    try {
      this.#storage?.setItem(this.#key, JSON.stringify(attempt));
    } catch {
      // Quota or privacy settings: the checkout still works, only a reload forgets.
    }
  }

  /** Forgets the attempt (`reset()`, a new attempt). */
  clear(): void {
    try {
      this.#storage?.removeItem(this.#key);
    } catch {
      // Nothing stored, nothing to forget.
    }
  }
}

/**
 * The storage key of a checkout: one per create URL and element `id`, so two
 * checkouts on a page, or two shops on a site, keep apart.
 */
export function attemptStorageKey(createUrl: string, elementId: string): string {
  return `pay-checkout:${elementId}:${createUrl}`;
}

/** `sessionStorage`, or undefined where it is missing or access throws. */
export function sessionStorageIfAvailable(): AttemptStorage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

/**
 * A fresh idempotency key: a random UUID, or 128 random bits in hex where
 * `crypto.randomUUID` is missing (it needs a secure context; a phone testing
 * a shop over plain HTTP on the LAN has none).
 */
export function newIdempotencyKey(): string {
  return (
    crypto.randomUUID?.() ??
    Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join(
      '',
    )
  );
}
