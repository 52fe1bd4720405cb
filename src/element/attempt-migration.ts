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
  version?: number;
  amount?: unknown;
  currency?: string;
}

/**
 * A `JSON.parse` reviver: each value of what storage holds as it is, but
 * what version 2 wrote in today's shape (changed in place). Its amounts, on
 * the attempt and on each order it paid again, are numbers beside their
 * currency, where today's are objects: each is made one `{ currency, value }`
 * as version 2 read it for its events and screens (none unless a whole
 * number, in the element's currency when it kept none), its currency left
 * beside it unread. What comes out is for `isStoredAttempt` to judge.
 */
export function reviveVersion2(_field: string, stored: Version2 | null): unknown {
  if (typeof stored?.amount === 'number') stored.amount = pageAmount(stored as PageAmount);
  if (stored?.version === 2) stored.version = 3;
  return stored;
}
