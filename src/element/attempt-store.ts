/**
 * Keeps the current checkout attempt in `sessionStorage` (`persist="session"`), so a reload resumes it with the same idempotency key
 * and never offers a fresh form after `paid`; beside it, the checkout's other
 * orders still open, so a reload keeps watching them. Storage that is
 * missing, full or forbidden (private modes, sandboxed frames) degrades to
 * no persistence.
 */
import { reviveVersion2 } from './attempt-migration.js';
import {
  type Checkout,
  type CheckoutAttempt,
  type CreatedAttempt,
  isStoredAttempt,
} from './checkout-attempt.js';

/** The storage calls the store uses; `sessionStorage` in the browser, a map in tests. */
export type AttemptStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Where a checkout's attempt is kept, under a key read at each use: what a reload finds. */
export class AttemptStore {
  readonly #storage: AttemptStorage | undefined;
  readonly #key: () => string | undefined;

  /** `key` is read at each use (from `attemptStorageKey`); undefined keeps nothing (`persist="none"`). */
  constructor(storage: AttemptStorage | undefined, key: () => string | undefined) {
    this.#storage = storage;
    this.#key = key;
  }

  /**
   * The stored attempt, in its state, if storage holds one it can trust. A
   * create the relay refused for good created nothing: it is forgotten.
   */
  load(): CheckoutAttempt | undefined {
    const stored = this.#read('');
    if (!isStoredAttempt(stored)) return undefined;
    if (stored.phase !== 'draft' || stored.state.status !== 'error' || stored.state.retryable) return stored;
    this.forget();
    return undefined;
  }

  /**
   * Stores the checkout's attempt with its state; a checkout without one (a
   * fresh form) forgets the stored one. A refusal leaves storage as it is: a
   * reload with the page fixed carries on.
   */
  save(checkout: Checkout): void {
    if (checkout.phase === 'none') {
      if (checkout.state.status !== 'error' || checkout.state.cause !== 'config') this.forget();
      return;
    }
    // A settled attempt keeps only its number masked (`settledAttempt`): no screen shows more of it.
    this.#write('', checkout);
  }

  /** Drops the stored attempt (`reset()`, a new attempt). */
  forget(): void {
    this.#write('');
  }

  /** The checkout's other open orders a reload left behind, each one storage can trust. */
  loadOthers(): CreatedAttempt[] {
    const stored = this.#read(OTHERS);
    return Array.isArray(stored)
      ? stored.filter((order): order is CreatedAttempt => isStoredAttempt(order) && order.phase === 'created')
      : [];
  }

  /**
   * Stores the checkout's other open orders beside its attempt; none forgets
   * them. Each keeps its number while its payer may still approve, as the
   * attempt does: the same number again takes the order up again, and
   * "Use another number" names it.
   */
  saveOthers(orders: CreatedAttempt[]): void {
    this.#write(OTHERS, orders.length ? orders : undefined);
  }

  /**
   * What is stored under the checkout's key and `suffix`, as JSON, with what
   * the previous release stored read in today's shape (`reviveVersion2`);
   * `null` when nothing is.
   */
  #read(suffix: string): unknown {
    const key = this.#key();
    try {
      // Nothing stored reads as `null`, which no attempt is.
      return key === undefined
        ? null
        : JSON.parse(this.#storage?.getItem(key + suffix) || 'null', reviveVersion2);
    } catch {
      // Storage that throws on access, or a value that is not JSON.
      return null;
    }
  }

  /** Stores `value` under the checkout's key and `suffix`; undefined removes it. */
  #write(suffix: string, value?: unknown): void {
    const key = this.#key();
    if (key === undefined) return;
    try {
      if (value === undefined) this.#storage?.removeItem(key + suffix);
      else this.#storage?.setItem(key + suffix, JSON.stringify(value));
    } catch {
      // Quota or privacy settings: the checkout still works, only a reload forgets.
    }
  }
}

/** The suffix of the key the other open orders are stored under, beside the attempt. */
const OTHERS = ':others';

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
    // Where it is missing (Node), naming it throws too.
    return sessionStorage;
  } catch {
    return undefined;
  }
}
