/**
 * What a lookup of an order reads and shares: the fields the browser is
 * answered with (contract §3), statuses and the amount charged only. Kept in
 * memory and in the journal so that other lookups of the order can answer
 * without a call; nothing of the customer's is in it.
 */
import type { LookupAnswer } from '../../shared/wire.js';
import { serviceReadingOf, serviceTotalOf } from '../fulfilment/service-reading.js';
import { paymentSummary } from '../handlers/payment-summary.js';
import type { ServiceReading } from '../journal/journal.js';
import type { LookupStatuses } from '../journal/lookup-journal.js';

/** One order's statuses as a lookup read them: the browser's answer without the order id. */
export type OrderStatusRead = Omit<LookupAnswer['order'], 'id'>;

/** Longest status text the journal keeps; a longer one (never a real status) is answered but not shared. */
const MAX_SHARED_TEXT = 64;

/** The statuses and total of a service order (spec §2), as the browser is answered them. */
export function statusReadOf(order: {
  status: string;
  completed_at?: string | undefined;
  line_item_group?: { total?: { currency: string; value: number } };
  payment: { status: string; failure_code?: unknown };
}): OrderStatusRead {
  return {
    status: order.status,
    ...(order.completed_at === undefined ? {} : { completed_at: order.completed_at }),
    amount: serviceTotalOf(order),
    payment: paymentSummary(order.payment),
  };
}

/** What the journal records of `read`, as of a service order: payment status, failure code, total. */
export function readingOf(read: OrderStatusRead): ServiceReading & { paymentStatus: string } {
  return { ...serviceReadingOf({ payment: read.payment }), ...(read.amount ? { amount: read.amount } : {}) };
}

/** `read` as the journal keeps it, or `undefined` when a field is too long to be a status. */
export function statusesOf(read: OrderStatusRead): LookupStatuses | undefined {
  const statuses: LookupStatuses = {
    orderStatus: read.status,
    paymentStatus: read.payment.status,
    failureCode: read.payment.failure_code ?? null,
    completedAt: read.completed_at ?? null,
    amount: read.amount ? { currency: read.amount.currency, value: read.amount.value } : null,
  };
  const texts = [statuses.orderStatus, statuses.paymentStatus, statuses.completedAt ?? ''];
  texts.push(statuses.amount?.currency ?? '');
  return texts.every((text) => text.length <= MAX_SHARED_TEXT) ? statuses : undefined;
}

/** The read the journal's `statuses` stand for. */
export function readOfStatuses(statuses: LookupStatuses): OrderStatusRead {
  return statusReadOf({
    status: statuses.orderStatus,
    ...(statuses.completedAt === null ? {} : { completed_at: statuses.completedAt }),
    ...(statuses.amount === null ? {} : { line_item_group: { total: statuses.amount } }),
    payment: {
      status: statuses.paymentStatus,
      ...(statuses.failureCode === null ? {} : { failure_code: statuses.failureCode }),
    },
  });
}
