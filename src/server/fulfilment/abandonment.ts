/**
 * The relay giving up on the deliveries still running when it closes: each
 * delivery listens, and stops waiting at once. A plain list of listeners
 * rather than an `AbortSignal`, which warns past ten listeners and would need
 * `node:events` to be told otherwise; a process may run a hundred deliveries.
 */

/** What a delivery sees of the relay giving up on it. */
export interface Abandonment {
  /** Whether the relay has given up. */
  readonly given: boolean;
  /** Calls `listener` once when the relay gives up (at once if it has); returns the way to stop listening. */
  listen(listener: () => void): () => void;
}

/** An abandonment the relay gives with `giveUp()`. */
export function createAbandonment(): Abandonment & { giveUp(): void } {
  const listeners = new Set<() => void>();
  let given = false;
  return {
    get given() {
      return given;
    },
    listen(listener) {
      if (given) {
        listener();
        return () => undefined;
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    giveUp() {
      if (given) return;
      given = true;
      for (const listener of listeners) listener();
      listeners.clear();
    },
  };
}
