/**
 * A settled order as a webhook event: its type (`order.paid`…), its id
 * (`msg_` and 24 base64url characters, derived from the order, its outcome
 * and the outcome it replaced, so journalling it twice is one event and every
 * retry carries the same `webhook-id`), and its body `{ type, timestamp, data }`
 * with the order as the merchant API answers it. The customer is kept apart
 * from the stored body (the journal erases it first) and put back at each send.
 */
import { orderOnWire, type WireOrderSource } from '../../orders/order-wire.js';
import { base64UrlEncode } from '../../tokens/base64url.js';

/** The event types an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['order.paid', 'order.failed', 'order.expired'] as const;
/** One event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A settled order, as the event is made from it. */
export interface WebhookOrder extends WireOrderSource {
  readonly outcome: 'paid' | 'failed' | 'expired';
  readonly settledAt: number;
  /** Who to ship to, or `null`. */
  readonly customer: { readonly name: string; readonly phoneNumber: string } | null;
}

/** An event ready to journal: id, type, the body without its customer, and the customer apart. */
export interface WebhookEvent {
  readonly id: string;
  readonly type: WebhookEventType;
  readonly body: string;
  readonly customer: string | null;
}

const encoder = new TextEncoder();

/** The type of an order's event. */
export function eventTypeOf(outcome: WebhookOrder['outcome']): WebhookEventType {
  return `order.${outcome}`;
}

/** The event id of `order`'s outcome: the same from every process, on every retry. */
export async function webhookEventIdOf(
  order: Pick<WebhookOrder, 'id' | 'outcome' | 'previousOutcome'>,
): Promise<string> {
  const source = JSON.stringify([order.id, order.outcome, order.previousOutcome]);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(source)));
  return `msg_${base64UrlEncode(digest.subarray(0, 18))}`;
}

/** The event of `order`. */
export async function webhookEventOf(order: WebhookOrder): Promise<WebhookEvent> {
  const type = eventTypeOf(order.outcome);
  const data = { ...orderOnWire(order), customer: null };
  const body = JSON.stringify({ type, timestamp: new Date(order.settledAt).toISOString(), data });
  const customer = order.customer && { name: order.customer.name, phone_number: order.customer.phoneNumber };
  return { id: await webhookEventIdOf(order), type, body, customer: customer && JSON.stringify(customer) };
}

/** The body as sent: the stored body with its customer put back (byte for byte the same on every send). */
export function bodyToSend(body: string, customer: string | null): string {
  if (customer === null) return body;
  const parsed = JSON.parse(body) as { data?: Record<string, unknown> };
  if (parsed.data) parsed.data.customer = JSON.parse(customer);
  return JSON.stringify(parsed);
}
