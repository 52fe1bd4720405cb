/**
 * A wait for an answer that gives up: the relay never lets a store that has
 * gone silent (Redis, the order journal) hold a shopper's request for long.
 */
import type { Clock } from './clock.js';

/**
 * `work`'s answer, or a rejection with `late()` once `ms` has passed on
 * `timers` without it. An answer or a failure of `work` after that is
 * ignored: the caller has moved on.
 */
export function answeredWithin<T>(
  timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  ms: number,
  work: Promise<T>,
  late: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = timers.setTimeout(() => reject(late()), ms);
    work.then(
      (value) => {
        timers.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        timers.clearTimeout(timer);
        reject(error);
      },
    );
  });
}
