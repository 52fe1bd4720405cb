/**
 * Polls an order's status for a checkout session (spec §4 "Polling
 * pattern", contract §2): one lookup in flight at most, every
 * `poll-interval` clamped to 2–5 s, backing off with jitter on errors,
 * paused while the page is hidden or the device offline and polling at once
 * when they come back, stopped on a final answer, a timeout or `stop()`.
 * Uses the session's clock only, and leaves no timer or listener behind.
 */
import { equalJitterDelay } from '../shared/backoff.js';
import type { LookupAnswer } from '../shared/wire.js';
import type { Clock } from './clock.js';
import type { PageSignals } from './page-signals.js';

/** The shortest poll interval (spec §8: poll every 2 to 5 seconds). */
export const POLL_INTERVAL_MIN_MS = 2_000;
/** The longest poll interval (spec §8). */
export const POLL_INTERVAL_MAX_MS = 5_000;
/** Used when `poll-interval` is missing or not a number. */
export const POLL_INTERVAL_DEFAULT_MS = 3_000;
/** Longest wait between two lookups while they keep failing. */
export const POLL_BACKOFF_MAX_MS = 30_000;

/** `poll-interval` as the controller uses it. */
export function clampPollInterval(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return POLL_INTERVAL_DEFAULT_MS;
  return Math.min(POLL_INTERVAL_MAX_MS, Math.max(POLL_INTERVAL_MIN_MS, ms));
}

/**
 * How the lookups are getting through, for the view to tell the shopper:
 * `trouble` while they fail and the poller backs off.
 */
export type Connection = 'ok' | 'offline' | 'trouble';

/** What the session supplies: the lookup itself, what to do with its outcomes, and the clock and page. */
export interface PollHandlers {
  /** One lookup; rejects on failure. */
  lookup(signal: AbortSignal): Promise<LookupAnswer>;
  /** An answer arrived; return true when it is final and polling should stop. */
  onAnswer(answer: LookupAnswer): boolean;
  /** A lookup failed; return true when it cannot get better (stop), false to back off and try again. */
  onFailure(error: unknown): boolean;
  /** The deadline passed with the payment still pending. */
  onTimeout(): void;
  /** `connection` changed. */
  onConnection(): void;
  clock: Clock;
  page: PageSignals;
}

/** Delay before the next lookup after `failures` failures in a row (≥ 1). */
export function pollBackoffDelay(intervalMs: number, failures: number): number {
  return equalJitterDelay(failures, intervalMs, POLL_BACKOFF_MAX_MS);
}

/** The one owner of polling for a checkout. */
export class PollController {
  /** How lookups are getting through. */
  connection: Connection = 'ok';

  readonly #handlers: PollHandlers;
  #active = false;
  #deadline = 0;
  #intervalMs = POLL_INTERVAL_DEFAULT_MS;
  #failures = 0;
  #timer: unknown;
  #inFlight: AbortController | undefined;
  /** Set when a poll came due while paused: poll as soon as the page is back. */
  #duePaused = false;

  #unwatch: (() => void) | undefined;

  constructor(handlers: PollHandlers) {
    this.#handlers = handlers;
  }

  /** True while polling (paused or not). */
  get running(): boolean {
    return this.#active;
  }

  /** Starts polling now, until `deadline` (ms since the epoch). Restarts if already running. */
  start(deadline: number, intervalMs: number): void {
    this.stop();
    this.#active = true;
    this.#deadline = deadline;
    this.#intervalMs = clampPollInterval(intervalMs);
    this.#failures = 0;
    this.#unwatch = this.#handlers.page.watch(this.#onPageChange);
    this.#setConnection(this.#online ? 'ok' : 'offline');
    void this.#pollNow();
  }

  /** Stops polling: aborts the lookup in flight, clears the timer, removes the listeners. */
  stop(): void {
    this.#active = false;
    this.#duePaused = false;
    this.#clearTimer();
    this.#inFlight?.abort();
    this.#inFlight = undefined;
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  get #online(): boolean {
    return this.#handlers.page.online();
  }

  get #paused(): boolean {
    return this.#handlers.page.hidden() || !this.#online;
  }

  #clearTimer(): void {
    this.#handlers.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #onPageChange = (): void => {
    if (!this.#active) return;
    if (!this.#online) this.#setConnection('offline');
    else if (this.connection === 'offline') this.#setConnection('ok');
    if (this.#paused) {
      // A hidden page keeps no timer running; the next poll waits for its return.
      if (this.#timer !== undefined) this.#duePaused = true;
      this.#clearTimer();
      return;
    }
    // Back in view or online: the payer may just have approved on the same
    // phone, so look at once rather than wait out the interval.
    if (this.#duePaused || this.#timer !== undefined) void this.#pollNow();
  };

  #schedule(delayMs: number): void {
    if (!this.#active) return;
    if (this.#paused) {
      this.#duePaused = true;
      return;
    }
    // Never sleep past the deadline: the last look happens on time.
    const { clock } = this.#handlers;
    const untilDeadline = Math.max(0, this.#deadline - clock.now());
    this.#timer = clock.setTimeout(
      () => {
        this.#timer = undefined;
        void this.#pollNow();
      },
      Math.min(delayMs, untilDeadline),
    );
  }

  async #pollNow(): Promise<void> {
    this.#clearTimer();
    this.#duePaused = false;
    if (!this.#active || this.#inFlight) return;
    if (this.#paused) {
      this.#duePaused = true;
      return;
    }
    const run = new AbortController();
    this.#inFlight = run;
    let answer: LookupAnswer;
    try {
      answer = await this.#handlers.lookup(run.signal);
    } catch (error) {
      if (run.signal.aborted || this.#inFlight !== run) return;
      this.#inFlight = undefined;
      this.#failures++;
      if (this.#handlers.onFailure(error)) return this.stop();
      if (this.#online) this.#setConnection('trouble');
      if (this.#timedOut()) return;
      const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs ?? 0;
      this.#schedule(Math.max(pollBackoffDelay(this.#intervalMs, this.#failures), retryAfterMs));
      return;
    }
    if (run.signal.aborted || this.#inFlight !== run) return;
    this.#inFlight = undefined;
    this.#failures = 0;
    // An answer already on its way can land just after the device went offline: it stays offline.
    this.#setConnection(this.#online ? 'ok' : 'offline');
    if (this.#handlers.onAnswer(answer)) return this.stop();
    if (this.#timedOut()) return;
    this.#schedule(this.#intervalMs);
  }

  #timedOut(): boolean {
    if (this.#handlers.clock.now() < this.#deadline) return false;
    this.stop();
    this.#handlers.onTimeout();
    return true;
  }

  #setConnection(connection: Connection): void {
    if (this.connection === connection) return;
    this.connection = connection;
    this.#handlers.onConnection();
  }
}
