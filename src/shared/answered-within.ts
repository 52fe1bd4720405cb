/**
 * The one timed wait of the relay: a wait of so many milliseconds on a
 * `Clock`'s timers (a test's clock moves it by hand) that something may end
 * sooner: an answer, a failure, the relay giving up. Each caller says what
 * the wait ends with once its time is up: a rejection (a store that has gone
 * silent never holds a shopper's request for long), a value, or the late
 * work itself, awaited after all.
 */
import type { Clock } from './clock.js';

/** The timers a wait is timed on. */
export type WaitTimers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

/** Ends a timed wait with what `outcome()` returns (or rejects it with what it throws); only the first end counts. */
export type EndWait<T> = (outcome: () => T | PromiseLike<T>) => void;

/**
 * Waits `ms` on `timers`, then ends with `onTime()`. `early` may end the wait
 * sooner through the `end` it is given; it returns what stops it listening
 * (called once the wait has ended), if anything.
 */
export function timedWait<T>(
  timers: WaitTimers,
  ms: number,
  onTime: () => T | PromiseLike<T>,
  early?: (end: EndWait<T>) => (() => void) | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let ended = false;
    let stopListening: (() => void) | undefined;
    const end: EndWait<T> = (outcome) => {
      if (ended) return;
      ended = true;
      timers.clearTimeout(timer);
      stopListening?.();
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    };
    const timer = timers.setTimeout(() => end(onTime), ms);
    stopListening = early?.(end);
    // Ended at once while it registered: it stops listening now.
    if (ended) stopListening?.();
  });
}

/**
 * An early end of a timed wait: `work`'s answer (through `map`, when given),
 * or its failure. What `work` does after the wait has ended is ignored.
 */
export function endsWith<T, R = T>(
  work: PromiseLike<T>,
  map?: (value: T) => R,
): (end: EndWait<R>) => undefined {
  return (end) => {
    work.then(
      (value) => end(() => (map ? map(value) : (value as unknown as R))),
      (error: unknown) =>
        end(() => {
          throw error;
        }),
    );
    return undefined;
  };
}

/**
 * `work`'s answer, or a rejection with `late()` once `ms` has passed on
 * `timers` without it. An answer or a failure of `work` after that is
 * ignored: the caller has moved on.
 */
export function answeredWithin<T>(
  timers: WaitTimers,
  ms: number,
  work: PromiseLike<T>,
  late: () => Error,
): Promise<T> {
  return timedWait(
    timers,
    ms,
    () => {
      throw late();
    },
    endsWith(work),
  );
}
