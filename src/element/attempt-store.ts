/**
 * Keeps the current checkout attempt in `sessionStorage` (contract §2,
 * `persist="session"`), so a reload resumes it with the same idempotency key
 * and never offers a fresh form after `paid`. Storage that is missing, full
 * or forbidden (private modes, sandboxed frames) degrades to no persistence.
 */
import { isStoredAttempt, type StoredAttempt } from './checkout-attempt.js';

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
