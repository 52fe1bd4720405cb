/**
 * The checkouts table as every store holds it: the same snake_case columns
 * in memory, in SQLite and in PostgreSQL, and one mapping to the typed
 * checkout, so the stores cannot drift apart in what they return.
 */
import type { CheckoutLineItem, JournalCheckout } from './journal.js';

/** A time or amount column as a driver may hand it back (PostgreSQL's `bigint` arrives as a string). */
type StoredInteger = number | string | bigint;

/** One row of `pay_checkout_checkouts`, column for column. */
export interface CheckoutRow {
  id: string;
  secret_digest: string;
  reference: string;
  line_items: string;
  metadata: string;
  amount_currency: string;
  amount_value: StoredInteger;
  origin: string | null;
  created_at: StoredInteger;
  expires_at: StoredInteger;
}

/** The row of `checkout`, in the order the insert statement takes its parameters. */
export function checkoutRowOf(checkout: JournalCheckout): CheckoutRow {
  return {
    id: checkout.id,
    secret_digest: checkout.secretDigest,
    reference: checkout.reference,
    line_items: JSON.stringify(checkout.lineItems),
    metadata: JSON.stringify(checkout.metadata),
    amount_currency: checkout.amount.currency,
    amount_value: checkout.amount.value,
    origin: checkout.origin,
    created_at: Math.round(checkout.createdAt),
    expires_at: Math.round(checkout.expiresAt),
  };
}

/** The checkout a row holds. */
export function rowToCheckout(row: CheckoutRow): JournalCheckout {
  return {
    id: row.id,
    secretDigest: row.secret_digest,
    reference: row.reference,
    lineItems: JSON.parse(row.line_items) as CheckoutLineItem[],
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    amount: { currency: row.amount_currency, value: Number(row.amount_value) },
    origin: row.origin,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}
