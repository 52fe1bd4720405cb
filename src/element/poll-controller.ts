/**
 * Polls one order's payment for a checkout session (the service's polling
 * pattern): one lookup in flight at most, every
 * `poll-interval` clamped to 2–5 s, backing off with jitter on errors that
 * a later lookup may not have, paused while the page is hidden or the
 * device offline and polling at once when they come back, stopped by a
 * lookup that cannot succeed, the deadline or `stop()` (the session's, on a
 * final status).
 * Meanwhile it ticks every whole second, paused or not, for the visible
 * countdown. Uses the session's clock only, and leaves no timer or listener behind.
 */
import { equalJitterDelay } from '../shared/backoff.js';
import type { Clock } from '../shared/clock.js';
import type { LookupAnswer, LookupRequest } from '../shared/wire.js';
import { asRequestError, CheckoutRequestError } from './checkout-api.js';
import { POLL_INTERVAL_DEFAULT_MS } from './defaults.js';
import type { PageSignals } from './page-signals.js';

/** The shortest poll interval (the service asks for a poll every 2 to 5 seconds). */
export const POLL_INTERVAL_MIN_MS = 2_000;
/** The longest poll interval. */
export const POLL_INTERVAL_MAX_MS = 5_000;
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

/** What the session supplies: the lookup itself, and what to do with its outcomes. */
export interface PollHandlers {
  /** One lookup; rejects with a CheckoutRequestError on failure. */
  lookup(request: LookupRequest, signal: AbortSignal): Promise<LookupAnswer>;
  /**
   * A lookup answered for the order polled. The session judges the status:
   * a final one moves it out of `requires_action`, which stops polling.
   */
  onAnswer(order: LookupAnswer['order']): void;
  /** A lookup failed in a way polling again cannot fix (`403`, `404`); polling has stopped. */
  onGiveUp(failure: CheckoutRequestError): void;
  /** The deadline passed with the payment still pending; polling has stopped. */
  onTimeout(): void;
  /** `connection` changed, or a second of the countdown passed. */
  onChange(): void;
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
  /** The session's clock and page. */
  readonly #env: Clock & PageSignals;
  // What is polled, set by each `start()`.
  #order!: LookupRequest;
  #deadline!: number;
  #intervalMs!: number;
  #failures!: number;
  #timer: unknown;
  #tickTimer: unknown;
  #inFlight: AbortController | undefined;
  /** Set when a poll came due while paused: poll as soon as the page is back. */
  #duePaused = false;

  /** Stops listening to the page; set exactly while polling. */
  #unwatch: (() => void) | undefined;

  constructor(handlers: PollHandlers, environment: Clock & PageSignals) {
    this.#handlers = handlers;
    this.#env = environment;
  }

  /** True while polling (paused or not). */
  get running(): boolean {
    return !!this.#unwatch;
  }

  /** Starts polling the order now, until its `deadline` (ms since the epoch). Restarts if already running. */
  start(
    { orderId, lookupToken, deadline }: { orderId: string; lookupToken: string; deadline: number },
    intervalMs: number,
  ): void {
    this.stop();
    this.#order = { order_id: orderId, lookup_token: lookupToken };
    this.#deadline = deadline;
    this.#intervalMs = clampPollInterval(intervalMs);
    this.#failures = 0;
    this.#unwatch = this.#env.watch(this.#onPageChange);
    this.#setConnection(this.#online ? 'ok' : 'offline');
    this.#tick();
    void this.#pollNow();
  }

  /** Stops polling: aborts the lookup in flight, clears the timer, removes the listeners. */
  stop(): void {
    this.#duePaused = false;
    this.#clearTimer();
    this.#env.clearTimeout(this.#tickTimer);
    this.#inFlight?.abort();
    this.#inFlight = undefined;
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  get #online(): boolean {
    return this.#env.online();
  }

  get #paused(): boolean {
    return this.#env.hidden() || !this.#online;
  }

  #clearTimer(): void {
    this.#env.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The countdown's next whole second, aligned to the deadline. */
  #tick(): void {
    const left = this.#deadline - this.#env.now();
    // No deadline (the timeout screen's checks): no countdown either.
    if (left <= 0 || left === Number.POSITIVE_INFINITY) return;
    this.#tickTimer = this.#env.setTimeout(
      () => {
        this.#handlers.onChange();
        this.#tick();
      },
      left % 1000 || 1000,
    );
  }

  readonly #onPageChange = (): void => {
    if (!this.running) return;
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

  /** The next lookup in `delayMs`, never past the deadline: the last look happens on time, then `onTimeout`. */
  #schedule(delayMs: number): void {
    if (!this.running) return;
    const untilDeadline = this.#deadline - this.#env.now();
    if (untilDeadline <= 0) {
      this.stop();
      this.#handlers.onTimeout();
    } else if (this.#paused) {
      this.#duePaused = true;
    } else {
      this.#timer = this.#env.setTimeout(
        () => {
          this.#timer = undefined;
          void this.#pollNow();
        },
        Math.min(delayMs, untilDeadline),
      );
    }
  }

  async #pollNow(): Promise<void> {
    this.#clearTimer();
    this.#duePaused = false;
    if (!this.running || this.#inFlight) return;
    if (this.#paused) {
      this.#duePaused = true;
      return;
    }
    const run = new AbortController();
    this.#inFlight = run;
    let answer: LookupAnswer;
    try {
      answer = await this.#handlers.lookup(this.#order, run.signal);
    } catch (error) {
      if (this.#inFlight !== run) return;
      this.#inFlight = undefined;
      // Only a relay's answer that may change is worth waiting for; anything unexpected is not.
      if (!(error instanceof CheckoutRequestError && error.retryable)) {
        this.stop();
        return this.#handlers.onGiveUp(asRequestError(error));
      }
      if (this.#online) this.#setConnection('trouble');
      const retryAfterMs = error.retryAfterMs ?? 0;
      return this.#schedule(Math.max(pollBackoffDelay(this.#intervalMs, ++this.#failures), retryAfterMs));
    }
    if (this.#inFlight !== run) return;
    this.#inFlight = undefined;
    this.#failures = 0;
    // An answer already on its way can land just after the device went offline: it stays offline.
    this.#setConnection(this.#online ? 'ok' : 'offline');
    // An answer for another order is one we cannot read, like a proxy's page: the next lookup may be right.
    if (answer.order.id === this.#order.order_id) this.#handlers.onAnswer(answer.order);
    this.#schedule(this.#intervalMs);
  }

  #setConnection(connection: Connection): void {
    if (this.connection === connection) return;
    this.connection = connection;
    this.#handlers.onChange();
  }
}
