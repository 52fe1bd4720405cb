/**
 * What was paid for, and for whom, as the journal keeps it:
 * the merchant's reference and metadata, the priced line items and the
 * amount charged, recorded with the intent and kept until the order is
 * pruned. None of it is personal data; the customer's name and number stay
 * in the create body alone, which goes once the order is known. The
 * network they paid from (an issuer code, not personal) stays with the row,
 * so that a retry's recall answers the same shopper only.
 */
import type { PricedLineItem } from '../pricing/priced-line-items.js';
import type {
  CreateIntent,
  JournalAttempt,
  JournalOrder,
  JournalOutcome,
  OrderDetails,
  ServiceReading,
} from './journal.js';
import { type JournalRow, rowToEntry } from './journal-row.js';

/** Most orders `ordersByReference` reads: one checkout's attempts are a handful. */
export const MAX_ORDERS_PER_REFERENCE = 100;

/** The columns of the details, as every store writes them with the intent. */
export function detailsColumns(details: OrderDetails | undefined) {
  return {
    reference: details?.reference ?? null,
    metadata: details ? JSON.stringify(details.metadata) : null,
    line_items: details ? JSON.stringify(details.lineItems) : null,
    amount_currency: details?.amount?.currency ?? null,
    amount_value: details?.amount?.value ?? null,
  };
}

/** The columns a service reading sets, `null` where it says nothing (the SQL keeps the stored amount then). */
export function readingColumns(reading: ServiceReading) {
  return {
    failure_code: reading.failureCode ?? null,
    amount_currency: reading.amount?.currency ?? null,
    amount_value: reading.amount?.value ?? null,
  };
}

function toNumberOrNull(value: number | string | bigint | null): number | null {
  return value === null ? null : Number(value);
}

/** The order a row holds; a row written before details were kept reads as none: no reference, no items. */
export function rowToOrder(row: JournalRow): JournalOrder {
  const settled = row.phase === 'settled';
  return {
    idempotencyKey: row.idempotency_key,
    orderId: row.order_id,
    outcome: settled ? (row.outcome as JournalOutcome) : 'pending',
    reference: row.reference,
    metadata: row.metadata === null ? {} : (JSON.parse(row.metadata) as Record<string, string>),
    lineItems: row.line_items === null ? [] : (JSON.parse(row.line_items) as PricedLineItem[]),
    amount:
      row.amount_currency === null || row.amount_value === null
        ? null
        : { currency: row.amount_currency, value: Number(row.amount_value) },
    paymentStatus: row.payment_status,
    failureCode: row.failure_code,
    issuer: row.issuer,
    previousOutcome: row.previous_outcome === 'expired' ? 'expired' : null,
    createdAt: Number(row.created_at),
    settledAt: settled ? toNumberOrNull(row.settled_at) : null,
    deliveredAt: toNumberOrNull(row.delivered_at),
  };
}

/** The attempt a row holds: its entry, its order and its digest. */
export function rowToAttempt(row: JournalRow): JournalAttempt {
  return { entry: rowToEntry(row), order: rowToOrder(row), attemptDigest: row.attempt_digest ?? null };
}

/** The columns of an intent's attempt: its digest, its service key and the prompt it holds. */
export function attemptColumns(intent: Pick<CreateIntent, 'attemptDigest' | 'serviceKey' | 'prompt'>) {
  return {
    attempt_digest: intent.attemptDigest ?? null,
    service_key: intent.serviceKey ?? null,
    prompt_key: intent.prompt?.key ?? null,
  };
}
