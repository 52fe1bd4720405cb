/**
 * Keeps the current checkout attempt in `sessionStorage` (contract §2,
 * `persist="session"`), so a reload resumes it with the same idempotency key
 * and never offers a fresh form after `paid`; beside it, the checkout's other
 * orders still open, so a reload keeps watching them. Storage that is
 * missing, full or forbidden (private modes, sandboxed frames) degrades to
 * no persistence.
 */
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
    this.#write('', storedForm(checkout));
  }

  /** Drops the stored attempt (`reset()`, a new attempt). */
  forget(): void {
    this.#write('');
  }

  /** The checkout's other open orders a reload left behind (contract §2), each one storage can trust. */
  loadOthers(): CreatedAttempt[] {
    const stored = this.#read(OTHERS);
    return Array.isArray(stored)
      ? stored.filter((order): order is CreatedAttempt => isStoredAttempt(order) && order.phase === 'created')
      : [];
  }

  /** Stores the checkout's other open orders beside its attempt; none forgets them. */
  saveOthers(orders: CreatedAttempt[]): void {
    this.#write(OTHERS, orders.length ? orders.map(withoutNumber) : undefined);
  }

  /** What is stored under the checkout's key and `suffix`, as JSON; `null` when nothing is. */
  #read(suffix: string): unknown {
    const key = this.#key();
    try {
      // Nothing stored reads as `null`, which no attempt is.
      return key === undefined ? null : JSON.parse(this.#storage?.getItem(key + suffix) || 'null');
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

/**
 * What storage keeps of an attempt (contract §2: key, order id, token,
 * state). While the payer decides, the number the prompt went to stays, so
 * the "approve on your phone" screen says it again after a reload; once the
 * payment is settled no screen shows it, and storage drops it.
 */
function storedForm(attempt: CheckoutAttempt): CheckoutAttempt {
  return attempt.phase === 'settled' ? withoutNumber(attempt) : attempt;
}

/** An attempt without the number its prompt went to: the checkout's other orders are shown by id only. */
function withoutNumber<T extends CheckoutAttempt>(attempt: T): Omit<T, 'localNumber'> {
  const { localNumber: _notShown, ...kept } = attempt as T & { localNumber?: string };
  return kept;
}
