/**
 * What a lookup of an order reads and shares: the fields the browser is
 * answered with, statuses and the amount charged only. Kept in memory and in
 * the journal so that other lookups of the order can answer without a call;
 * nothing of the customer's is in it. The journal's copy is read back as it
 * is, never through a service order made up again.
 */
import type { LookupAnswer } from '../../shared/wire.js';
import type { OrderAmount } from '../journal/journal.js';
import type { LookupStatuses } from '../journal/lookup-journal.js';
import type { OrderReading } from '../journal/relay-journal.js';
import { paymentSummary } from './payment-summary.js';
import { serviceReadingOf, serviceTotalOf } from './service-reading.js';

/** One order's statuses as a lookup read them: the browser's answer without the order id. */
export type OrderStatusRead = Omit<LookupAnswer['order'], 'id'>;

/** Longest status text the journal keeps; a longer one (never a real status) is answered but not shared. */
const MAX_SHARED_TEXT = 64;

/** The statuses and total of a service order, as the browser is answered them. */
export function statusReadOf(order: {
  status: string;
  completed_at?: string | undefined;
  line_item_group?: { total?: OrderAmount };
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
export function readingOf(read: OrderStatusRead): OrderReading {
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

/** The read the journal's `statuses` stand for, field by field. */
export function statusReadFromJournal(statuses: LookupStatuses): OrderStatusRead {
  const { orderStatus, completedAt, amount, paymentStatus, failureCode } = statuses;
  return {
    status: orderStatus,
    ...(completedAt === null ? {} : { completed_at: completedAt }),
    amount: amount === null ? undefined : { currency: amount.currency, value: amount.value },
    // Through the summary still: only a failure code the checkout knows reaches the browser.
    payment: paymentSummary({ status: paymentStatus, failure_code: failureCode ?? undefined }),
  };
}
