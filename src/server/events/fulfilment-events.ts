/**
 * What the watcher and delivery tell the merchant through `onEvent`: orders
 * settling and delivered, callbacks that threw, and trouble reaching the
 * service or the journal. Order ids and statuses only, nothing personal.
 */
import type { JournalOutcome } from '../journal/journal.js';

/** Fulfilment's part of `CheckoutRelayEvent`. */
export type FulfilmentEvent =
  | {
      /** An order reached a final status: from the watcher's lookup or a browser's lookup through the relay. */
      type: 'order_settled';
      orderId: string;
      outcome: Exclude<JournalOutcome, 'expired'>;
      paymentStatus: string;
      source: 'watcher' | 'browser';
    }
  | {
      /**
       * An order settled `expired` was paid after all, found by a browser's
       * lookup or the sweep of the service's orders: `onPaid` is owed, with
       * `previousOutcome: 'expired'`.
       */
      type: 'order_paid_late';
      orderId: string;
      source: 'browser' | 'sweep';
    }
  | {
      /**
       * The service answers `404` for an order the journal watches (it does not
       * know it); past the create grace the order settles failed with
       * `failureCode: 'unknown_order'` and `onFailed` is called.
       */
      type: 'order_unknown_to_service';
      orderId: string;
    }
  | {
      /** The watcher gave up on an order past the total bound; `orderId` is null when its create never got an answer. */
      type: 'order_expired';
      orderId: string | null;
    }
  | {
      /** The merchant's callback returned; it will not be called again for this order. */
      type: 'order_delivered';
      orderId: string;
      outcome: JournalOutcome;
      attempt: number;
    }
  | {
      /**
       * The merchant's callback threw, or ran past `callbackTimeoutMs` (then
       * `error` is a `TimeoutError`); it is called again at `nextAttemptAt`.
       */
      type: 'delivery_failed';
      orderId: string;
      outcome: JournalOutcome;
      attempt: number;
      nextAttemptAt: number;
      error: unknown;
    }
  | {
      /**
       * This process's lease passed to another: before the call (the callback
       * is not called here), or before its return was recorded (the other may
       * call it again).
       */
      type: 'delivery_lease_lost';
      orderId: string;
    }
  | {
      /**
       * The service is down or rate limiting: the watcher pauses for `pauseMs`
       * and probes with one call until it answers again. No order is dropped.
       */
      type: 'watcher_paused';
      reason: 'rate_limited' | 'unavailable';
      pauseMs: number;
      failures: number;
    }
  | {
      /** The service answered again after a pause. */
      type: 'watcher_resumed';
    }
  | {
      /** A webhook endpoint answered `2xx`: the event is delivered there. */
      type: 'webhook_delivered';
      eventId: string;
      /** The endpoint's URL, without its query. */
      endpoint: string;
      /** 1 for the first attempt to this endpoint. */
      attempt: number;
      status: number;
    }
  | {
      /**
       * A webhook attempt failed: `pending` when another is due at
       * `nextAttemptAt`, `failed` after the schedule's last step, `disabled`
       * when the endpoint answered `410`.
       */
      type: 'webhook_attempt_failed';
      eventId: string;
      endpoint: string;
      attempt: number;
      /** The HTTP status, or `null` when none came. */
      status: number | null;
      /** A short description (a refused target, a time-out, a redirect not followed), or `null`. */
      error: string | null;
      state: 'pending' | 'failed' | 'disabled';
      nextAttemptAt: number | null;
    }
  | {
      /** The journal failed (or failed to close), or a resent create was refused for good; `error` says why. */
      type: 'watcher_error';
      stage:
        | 'claim'
        | 'record'
        | 'resend'
        | 'delivery'
        | 'prune'
        | 'browser_lookup'
        | 'sweep'
        | 'webhook'
        | 'close';
      error: unknown;
    }
  | {
      /** The journal could not record a create (or be read for a retry's refused cart): the relay refused it without calling the service. */
      type: 'journal_unavailable';
      error: unknown;
    };
