/**
 * Keeps the current checkout attempt in `sessionStorage` (contract §2,
 * `persist="session"`), so a reload resumes it with the same idempotency key
 * and never offers a fresh form after `paid`. Storage that is missing, full
 * or forbidden (private modes, sandboxed frames) degrades to no persistence.
 */
import { type CheckoutAttempt, isStoredAttempt } from './checkout-attempt.js';
import type { MachineState } from './checkout-machine.js';
import type { PayCheckoutEventName } from './events.js';

/** The storage calls the store uses; `sessionStorage` in the browser, a map in tests. */
export type AttemptStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/**
 * The current attempt, in memory and (given a storage key) in storage: what
 * a reload finds, and which of the contract's events the attempt has fired,
 * so that each fires at most once per attempt, reloads included.
 */
export class AttemptStore {
  /** The attempt in hand; undefined on a fresh form. Stored only by `save`. */
  current: CheckoutAttempt | undefined;
  readonly #storage: AttemptStorage | undefined;
  readonly #key: () => string | undefined;

  /** `key` is read at each use (from `attemptStorageKey`); undefined keeps nothing (`persist="none"`). */
  constructor(storage: AttemptStorage | undefined, key: () => string | undefined) {
    this.#storage = storage;
    this.#key = key;
  }

  /**
   * Makes the stored attempt the current one, if storage holds one it can
   * trust. A create the relay refused for good created nothing: it is forgotten.
   */
  load(): CheckoutAttempt | undefined {
    const key = this.#key();
    let stored: unknown;
    try {
      // Nothing stored reads as `null`, which no attempt is.
      stored = key === undefined ? null : JSON.parse(this.#storage?.getItem(key) || 'null');
    } catch {
      // Storage that throws on access, or a value that is not JSON.
    }
    if (!isStoredAttempt(stored)) return undefined;
    if (stored.phase === 'draft' && stored.state.status === 'error' && !stored.state.retryable) this.forget();
    else this.current = stored;
    return this.current;
  }

  /** Stores the current attempt in `state`. A refusal is not stored: a reload with the page fixed carries on. */
  save(state: MachineState): void {
    const attempt = this.current;
    const key = this.#key();
    if (!attempt || (state.status === 'error' && state.cause === 'config')) return;
    // The machine keeps each phase to its own states (see CheckoutAttempt).
    attempt.state = state as typeof attempt.state;
    try {
      if (key !== undefined) this.#storage?.setItem(key, JSON.stringify(storedForm(attempt)));
    } catch {
      // Quota or privacy settings: the checkout still works, only a reload forgets.
    }
  }

  /** Drops the current attempt, stored copy included (`reset()`, a new attempt). */
  forget(): void {
    const key = this.#key();
    this.current = undefined;
    try {
      if (key !== undefined) this.#storage?.removeItem(key);
    } catch {
      // Nothing stored, nothing to forget.
    }
  }

  /** True the first time `name` is asked about for `attempt` (the current one by default), which then remembers it. */
  once(name: PayCheckoutEventName, state: MachineState, attempt = this.current): boolean {
    if (attempt?.fired.includes(name)) return false;
    attempt?.fired.push(name);
    if (attempt === this.current) this.save(state);
    return true;
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
 * What storage keeps of an attempt (contract §2: key, order id, token,
 * state): once the order exists, the shopper's number stays in memory only,
 * for the "approve on your phone" screen; a reload shows that screen without it.
 */
function storedForm(attempt: CheckoutAttempt): CheckoutAttempt {
  if (attempt.phase === 'draft' || !('localNumber' in attempt)) return attempt;
  const { localNumber: _inMemoryOnly, ...kept } = attempt as CheckoutAttempt & { localNumber?: string };
  return kept as CheckoutAttempt;
}
