/**
 * Reads the relay's answers in the browser without zod. The shapes are those
 * of `src/shared/wire.ts`, which stays the one definition: a
 * property test (test/node/element/wire-guards.test.ts) holds these guards to
 * the same verdicts as `createAnswerSchema`, `lookupAnswerSchema`,
 * `priceAnswerSchema` and `errorBodySchema` (they pass answers through with any extra fields, where
 * zod would strip them). Why not zod itself: zod/mini's core alone is 4.5 KiB
 * gzip, and the embed's whole budget is 18 KiB. `order.amount` and
 * `reference` are optional (an older relay sends neither): the session reads
 * them with `readAmount` and a type check, never refusing an answer for them.
 */
import { type ErrorBody, ORDER_ID_PATTERN } from '../shared/service-contract.js';
import type { CreateAnswer, LookupAnswer, OrderAmount, PriceAnswer } from '../shared/wire.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const isString = (value: unknown): value is string => typeof value === 'string';

/** True for `{ id, status, payment: { status } }` with `completed_at` a string where lookup's shape has it. */
function isOrder(value: unknown, withCompletedAt: boolean): boolean {
  return (
    isObject(value) &&
    isString(value.id) &&
    isString(value.status) &&
    isObject(value.payment) &&
    isString(value.payment.status) &&
    (!withCompletedAt || value.completed_at === undefined || isString(value.completed_at))
  );
}

/**
 * The create answer `{ order, lookup_token }`, or undefined for any other
 * shape, including an order id not of the `or_…` form `resume()` accepts: a
 * relay (or anything between) cannot make the element keep and poll an id of
 * its choosing.
 */
export function readCreateAnswer(json: unknown): CreateAnswer | undefined {
  return isObject(json) &&
    isString(json.lookup_token) &&
    isOrder(json.order, false) &&
    ORDER_ID_PATTERN.test((json.order as Json).id as string)
    ? (json as CreateAnswer)
    : undefined;
}

/** The lookup answer `{ order }`, or undefined for any other shape. */
export function readLookupAnswer(json: unknown): LookupAnswer | undefined {
  return isObject(json) && isOrder(json.order, true) ? (json as LookupAnswer) : undefined;
}

/** The price answer `{ amount, line_items: [{ name, quantity, unit_price }], reference }`, or undefined for any other shape. */
export function readPriceAnswer(json: unknown): PriceAnswer | undefined {
  return isObject(json) &&
    readAmount(json.amount) &&
    Array.isArray(json.line_items) &&
    json.line_items.every(
      (line) =>
        isObject(line) &&
        isString(line.name) &&
        Number.isSafeInteger(line.quantity) &&
        readAmount(line.unit_price),
    ) &&
    (json.reference === null || isString(json.reference))
    ? (json as PriceAnswer)
    : undefined;
}

/** The `error` of the service's error shape, or undefined. */
export function readErrorBody(json: unknown): ErrorBody['error'] | undefined {
  const error = isObject(json) && json.error;
  return isObject(error) &&
    isString(error.code) &&
    isString(error.message) &&
    isString(error.type) &&
    (error.param === undefined || isString(error.param))
    ? (error as ErrorBody['error'])
    : undefined;
}

/**
 * `order.amount` when it is one (`{ currency, value }`, a whole number of
 * minor units), else undefined, as `orderAmountSchema` reads it: a copy
 * with those two fields only, which the element keeps as it is from the
 * answer to the screen. An answer without it, or with one malformed, shows
 * the page's amount.
 */
export function readAmount(amount: unknown): OrderAmount | undefined {
  return isObject(amount) &&
    isString(amount.currency) &&
    Number.isSafeInteger(amount.value) &&
    (amount.value as number) >= 0
    ? { currency: amount.currency, value: amount.value as number }
    : undefined;
}
