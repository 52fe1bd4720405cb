/**
 * Re-renders its host once a second until a deadline, for the visible
 * "time left to approve" countdown. A chain of `setTimeout`s aligned to the
 * second, stopped on disconnect, so no timer outlives the element.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Re-renders its host at every whole second until a deadline; the host
 * computes the time left from the deadline itself (`secondsUntil`), so the
 * first render is right without an extra update.
 */
export class CountdownController implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  #deadline = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
    host.addController(this);
  }

  /** Counts down to `deadline` (ms since the epoch). */
  start(deadline: number): void {
    this.stop();
    this.#deadline = deadline;
    this.#schedule();
  }

  /** Stops ticking. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  hostDisconnected(): void {
    this.stop();
  }

  #schedule(): void {
    const left = this.#deadline - Date.now();
    this.#timer =
      left > 0
        ? setTimeout(
            () => {
              this.#host.requestUpdate();
              this.#schedule();
            },
            left % 1000 || 1000,
          )
        : undefined;
  }
}

/** Whole seconds from now until `deadline` (ms since the epoch), never negative. */
export function secondsUntil(deadline: number): number {
  return Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
}

/** `m:ss`, as the countdown shows it. */
export function formatCountdown(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
