/**
 * Ticks once a second until a deadline, for the visible "time left to
 * approve" countdown: a chain of timeouts aligned to the second on the
 * session's clock, so `stop()` leaves no timer behind.
 */
import type { Clock } from './clock.js';

/** Calls `onTick` at every whole second until a deadline; the view computes the time left itself. */
export class Countdown {
  readonly #clock: Clock;
  readonly #onTick: () => void;
  #deadline = 0;
  #timer: unknown;

  constructor(clock: Clock, onTick: () => void) {
    this.#clock = clock;
    this.#onTick = onTick;
  }

  /** Counts down to `deadline` (ms since the epoch). */
  start(deadline: number): void {
    this.stop();
    this.#deadline = deadline;
    this.#schedule();
  }

  /** Stops ticking. */
  stop(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    const left = this.#deadline - this.#clock.now();
    this.#timer =
      left > 0
        ? this.#clock.setTimeout(
            () => {
              this.#onTick();
              this.#schedule();
            },
            left % 1000 || 1000,
          )
        : undefined;
  }
}

/** `m:ss`, as the countdown shows it. */
export function formatCountdown(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
