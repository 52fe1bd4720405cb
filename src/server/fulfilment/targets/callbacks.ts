/**
 * The merchant's callbacks as a delivery target: `onPaid` (late payments
 * too, with `previousOutcome: 'expired'`), `onFailed` and `onExpired`, each
 * called with the settled order; the order is delivered once the callback
 * returns (or its promise resolves).
 */
import type { JournalOutcome } from '../../journal/journal.js';
import type { FulfilledOrder } from '../fulfilled-order.js';
import type { DeliveryTarget } from './delivery-target.js';

/** The merchant's callback for one outcome; the order is delivered once it returns. */
export type FulfilmentCallback = (order: FulfilledOrder) => void | Promise<void>;

/** The callbacks of `createCheckoutRelay`: `onPaid` is required unless webhooks are given, the others optional. */
export interface CallbackOptions {
  readonly onPaid: FulfilmentCallback | undefined;
  readonly onFailed?: FulfilmentCallback | undefined;
  readonly onExpired?: FulfilmentCallback | undefined;
}

/** The option name of each outcome's callback, as messages name it. */
const CALLBACK_NAMES = { paid: 'onPaid', failed: 'onFailed', expired: 'onExpired' } as const;

/** The target that calls `options`' callback of each order's outcome. */
export function callbackTarget(options: CallbackOptions): DeliveryTarget {
  const callbacks: Readonly<Record<JournalOutcome, FulfilmentCallback | undefined>> = Object.freeze({
    paid: options.onPaid,
    failed: options.onFailed,
    expired: options.onExpired,
  });
  return Object.freeze({
    receiverOf: (outcome: JournalOutcome) => (callbacks[outcome] ? CALLBACK_NAMES[outcome] : undefined),
    deliver(order: FulfilledOrder) {
      const callback = callbacks[order.outcome];
      // Called on its own, not as a method of anything the merchant could reach;
      // its own promise is handed back, so delivery waits on nothing more than it.
      return callback?.(order);
    },
  });
}
