/**
 * The checkout's other orders still open (one checkout, at most
 * one payment). "Use another number" starts a new attempt, but the
 * earlier order cannot be cancelled: the service has no cancel, and its
 * payer may still approve. So each is looked up at the checkout's interval,
 * by a `PollController` of its own (one lookup in flight per order, paused
 * while the page is hidden or offline, stopped off the page), until it
 * settles or its own `poll-timeout` passes. What a settled one means is the
 * session's to decide.
 */
import { classifyPaymentStatus } from '../shared/service-contract.js';
import type { LookupAnswer } from '../shared/wire.js';
import type { CreatedAttempt } from './checkout-attempt.js';
import { PollController, type PollHandlers } from './poll-controller.js';
import type { CheckoutEnvironment, CheckoutSettings } from './session-host.js';

/** What the session supplies. */
export interface OtherOrderHandlers extends Pick<PollHandlers, 'lookup'> {
  /** One of the orders is paid or failed: true to keep watching it, while the checkout cannot take it yet. */
  onSettled(attempt: CreatedAttempt, order: LookupAnswer['order']): boolean;
  /** The orders watched changed: what storage keeps, and what the receipt says. */
  onChange(): void;
}

/** Each of a checkout's other open orders, with its poller. */
export class OtherOrders extends Map<CreatedAttempt, PollController> {
  readonly #handlers: OtherOrderHandlers;
  readonly #env: CheckoutEnvironment;
  readonly #settings: CheckoutSettings;

  /** `settings` is read at each start: `poll-interval` changes at any time. */
  constructor(handlers: OtherOrderHandlers, environment: CheckoutEnvironment, settings: CheckoutSettings) {
    super();
    this.#handlers = handlers;
    this.#env = environment;
    this.#settings = settings;
  }

  /** Watches `attempt`'s order too, from now: a lookup at once, then one per interval; not once its `poll-timeout` passed. */
  add(attempt: CreatedAttempt): void {
    if (attempt.deadline <= this.#env.now()) return;
    const drop = () => this.take(attempt);
    const poll = new PollController(
      {
        lookup: this.#handlers.lookup,
        onAnswer: (order) => {
          const pending = classifyPaymentStatus(order.payment.status) === 'pending';
          if (!pending && !this.#handlers.onSettled(attempt, order)) drop();
        },
        onGiveUp: drop,
        onTimeout: drop,
        // Nothing on screen follows their countdown or connection.
        onChange: () => undefined,
      },
      this.#env,
    );
    this.set(attempt, poll);
    this.#handlers.onChange();
    this.run(true);
  }

  /** The open order whose prompt went to `localNumber`, if any: the same number again takes it up, never a new prompt. */
  withNumber(localNumber: string): CreatedAttempt | undefined {
    for (const attempt of this.keys()) if (attempt.localNumber === localNumber) return attempt;
  }

  /** Stops watching `attempt` here: it settled, its time passed, or the checkout takes it up again. */
  take(attempt: CreatedAttempt): void {
    this.get(attempt)?.stop();
    if (this.delete(attempt)) this.#handlers.onChange();
  }

  /** `true`: looks them up (on the page), those polling carrying on as they are; `false`: stops every lookup. */
  run(on: boolean): void {
    for (const [attempt, poll] of this) {
      if (!on) poll.stop();
      else if (!poll.running) poll.start(attempt, this.#settings.pollInterval);
    }
  }

  /** Stops watching them all: the checkout is over, or another one begins. */
  override clear(): void {
    this.run(false);
    super.clear();
    this.#handlers.onChange();
  }
}
