/**
 * The one time source of the product: the element's session, the relay's
 * limits and watcher, and the sandbox each take a `Clock` (the `clock`
 * option), the system's by default and a fake in tests. Every call looks the
 * global up when it happens, so a test that installs fake timers after a
 * module loaded still drives it.
 */

/** What every part needs of a clock: the time, and timers on it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** The page's (or Node's) clock and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};
