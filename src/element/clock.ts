/**
 * The time source of a checkout session: the page's own timers by default,
 * a fake in tests. Every call looks the global up when it happens, so a test
 * that installs fake timers after the element loaded still drives it.
 */

/** What the session needs of a clock. */
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
