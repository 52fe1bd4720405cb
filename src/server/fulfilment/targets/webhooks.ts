/**
 * Webhooks as a delivery target: a settled order is handed over by
 * journalling its event once for each endpoint subscribed to its type (an
 * event journalled already is left as it is, so a retried hand-over is one
 * event), and the order counts as delivered once that is done; the
 * dispatcher (webhooks/webhook-dispatcher.ts) then sends each on its own
 * schedule. With callbacks too, they are called after the events are
 * journalled, and the order is delivered once both are done.
 */
import type { Journal, JournalOutcome } from '../../journal/journal.js';
import type { FulfilledOrder } from '../fulfilled-order.js';
import type { WebhookEndpoint } from '../webhooks/webhook-endpoints.js';
import { eventTypeOf, webhookEventOf } from '../webhooks/webhook-event.js';
import type { DeliveryTarget } from './delivery-target.js';

/** What the webhook target needs. */
export interface WebhookTargetOptions {
  readonly endpoints: readonly WebhookEndpoint[];
  /** Where events are journalled. */
  readonly journal: Pick<Journal, 'recordWebhookEvents' | 'readOrder'>;
  /** The merchant's callbacks, when given beside webhooks. */
  readonly callbacks: DeliveryTarget | undefined;
  /** Told once an order's events are journalled: the dispatcher sends them now rather than at its next poll. */
  readonly journalled: () => void;
}

/** The target that journals each order's webhook events, then calls the callbacks if any. */
export function webhookTarget(options: WebhookTargetOptions): DeliveryTarget {
  const { endpoints, journal, callbacks, journalled } = options;
  const subscribed = (outcome: JournalOutcome) =>
    endpoints.filter((endpoint) => endpoint.events.has(eventTypeOf(outcome)));
  return Object.freeze({
    receiverOf(outcome: JournalOutcome) {
      const receivers = [
        subscribed(outcome).length > 0 ? 'webhooks' : undefined,
        callbacks?.receiverOf(outcome),
      ].filter((receiver) => receiver !== undefined);
      return receivers.length === 0 ? undefined : receivers.join(' and ');
    },
    async deliver(order: FulfilledOrder) {
      const to = subscribed(order.outcome);
      if (to.length > 0) {
        // The event tells the order as the merchant API does: its creation time is the journal's.
        const recorded = await journal.readOrder({ orderId: order.id });
        const event = await webhookEventOf({
          ...order,
          createdAt: recorded?.createdAt ?? order.settledAt,
          deliveredAt: null,
        });
        await journal.recordWebhookEvents([
          { ...event, orderId: order.id, endpoints: to.map((endpoint) => endpoint.url) },
        ]);
        journalled();
      }
      if (callbacks?.receiverOf(order.outcome) !== undefined) await callbacks.deliver(order);
    },
  });
}
