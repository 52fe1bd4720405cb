/**
 * Attempts stored by an earlier release of the element. A release can reach
 * a shopper between two page loads, in the middle of a payment: the attempt
 * a reload finds must still carry its key, its order, the events it fired
 * and its amount, or the shopper is offered a fresh form (and a second
 * payment) for an order already on its way.
 */
import { type PageAmount, pageAmount } from './checkout-attempt.js';

/** What version 2 kept split: an amount a number of minor units, its currency apart (an attempt, or an order it paid again). */
interface Version2 {
  amount?: unknown;
  currency?: string;
}

/**
 * A `JSON.parse` reviver: each value of what storage holds as it is, but
 * what version 2 wrote in today's shape, version 3. Its amounts, on the
 * attempt and on each order it paid again, are numbers beside their
 * currency, where no amount of today's is a number: each is made one
 * `{ currency, value }` (in place) as version 2 read it for its events and
 * screens (none unless a whole number, in the element's currency when it
 * kept none), its currency left beside it unread. What comes out is for
 * `isStoredAttempt` to judge.
 */
export function reviveVersion2(field: string, stored: Version2 | null): unknown {
  if (typeof stored?.amount === 'number') stored.amount = pageAmount(stored as PageAmount);
  return field === 'version' && (stored as unknown) === 2 ? 3 : stored;
}
