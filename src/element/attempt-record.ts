/**
 * The current checkout attempt and its storage: what a reload finds, and
 * which of the contract's events the attempt has fired, so that each fires
 * at most once per attempt, reloads included.
 */
import { type AttemptStorage, AttemptStore } from './attempt-store.js';
import type { StoredAttempt } from './checkout-attempt.js';
import type { MachineState } from './checkout-machine.js';
import type { PayCheckoutEventName } from './events.js';

/** One checkout's attempt, in memory and (given a storage key) in storage. */
export class AttemptRecord {
  /** The attempt in hand; undefined on a fresh form. Stored only by `save`. */
  current: StoredAttempt | undefined;
  readonly #storage: AttemptStorage | undefined;
  readonly #storageKey: () => string | undefined;

  /** `storageKey` is read at each use: undefined keeps nothing (`persist="none"`). */
  constructor(storage: AttemptStorage | undefined, storageKey: () => string | undefined) {
    this.#storage = storage;
    this.#storageKey = storageKey;
  }

  /** Makes the stored attempt the current one. A create the relay refused for good created nothing: it is forgotten. */
  load(): StoredAttempt | undefined {
    const stored = this.#store()?.load();
    if (stored?.phase === 'draft' && stored.state.status === 'error' && !stored.state.retryable)
      this.forget();
    else this.current = stored;
    return this.current;
  }

  /** Stores the current attempt in `state`. A refusal is not stored: a reload with the page fixed carries on. */
  save(state: MachineState): void {
    const attempt = this.current;
    if (!attempt || (state.status === 'error' && state.cause === 'config')) return;
    // The machine keeps each phase to its own states (see StoredAttempt).
    attempt.state = state as typeof attempt.state;
    this.#store()?.save(attempt);
  }

  /** Drops the current attempt, stored copy included. */
  forget(): void {
    this.#store()?.clear();
    this.current = undefined;
  }

  /** True the first time `name` is asked about for `attempt` (the current one by default), which then remembers it. */
  once(name: PayCheckoutEventName, state: MachineState, attempt = this.current): boolean {
    if (attempt?.fired.includes(name)) return false;
    attempt?.fired.push(name);
    if (attempt === this.current) this.save(state);
    return true;
  }

  #store(): AttemptStore | undefined {
    const key = this.#storageKey();
    return key === undefined ? undefined : new AttemptStore(this.#storage, key);
  }
}
