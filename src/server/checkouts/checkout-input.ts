/**
 * `relay.checkouts.create`'s input checked: a mistake is the merchant's
 * server's, so it is a TypeError naming the field (`lineItems[1].quantity`),
 * before anything is recorded. The merchant API checks the wire first and
 * answers its own `400`; this is the library's last word.
 */
import { CURRENCIES, ORDER_INPUT_LIMITS } from '../../shared/service-contract.js';
import { REFERENCE_PATTERN } from '../../shared/wire.js';
import type { CheckoutLineItem } from '../journal/journal.js';
import { METADATA_LIMITS } from '../pricing/priced-cart.js';

/** Shortest and longest life of a checkout, and its default, in seconds. */
export const CHECKOUT_EXPIRY_SECONDS = { min: 300, max: 86_400, default: 3_600 } as const;

/** Longest `sku` kept. */
const SKU_MAX_LENGTH = 64;

/** The input, checked. */
export interface CheckedCheckoutInput {
  lineItems: CheckoutLineItem[];
  reference: string;
  metadata: Record<string, string>;
  expiresInMs: number;
  origin: string | null;
}

const OWNER = 'relay.checkouts.create';

function fail(field: string, expected: string): never {
  throw new TypeError(`${OWNER}: ${field}: expected ${expected}.`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isIntegerFrom(value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
}

/** One line item checked, `field` naming it. */
function checkLineItem(item: unknown, field: string): CheckoutLineItem {
  if (!isPlainObject(item)) fail(field, 'an object { name, quantity, unitPrice, sku? }');
  const { name, quantity, unitPrice, sku = null } = item;
  const maxName = ORDER_INPUT_LIMITS.productNameMaxLength;
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > maxName)
    fail(`${field}.name`, `a product name of 1 to ${maxName} characters`);
  if (!isIntegerFrom(quantity, 1, ORDER_INPUT_LIMITS.quantityMax))
    fail(`${field}.quantity`, `an integer from 1 to ${ORDER_INPUT_LIMITS.quantityMax}`);
  if (!isPlainObject(unitPrice)) fail(`${field}.unitPrice`, 'an object { currency, value }');
  const { currency, value } = unitPrice;
  if (!CURRENCIES.includes(currency as (typeof CURRENCIES)[number]))
    fail(`${field}.unitPrice.currency`, `one of ${CURRENCIES.join(', ')}`);
  if (!isIntegerFrom(value, ORDER_INPUT_LIMITS.priceValueMin))
    fail(
      `${field}.unitPrice.value`,
      `an integer amount in minor units, at least ${ORDER_INPUT_LIMITS.priceValueMin}`,
    );
  if (sku !== null && (typeof sku !== 'string' || sku.length === 0 || sku.length > SKU_MAX_LENGTH))
    fail(`${field}.sku`, `null or a string of 1 to ${SKU_MAX_LENGTH} characters`);
  return {
    name: name.trim(),
    quantity,
    unitPrice: { currency: currency as CheckoutLineItem['unitPrice']['currency'], value },
    sku: sku as string | null,
  };
}

function checkLineItems(lineItems: unknown): CheckoutLineItem[] {
  const max = ORDER_INPUT_LIMITS.lineItemsMax;
  if (!Array.isArray(lineItems) || lineItems.length === 0 || lineItems.length > max)
    fail('lineItems', `an array of 1 to ${max} line items`);
  const checked = lineItems.map((item, index) => checkLineItem(item, `lineItems[${index}]`));
  if (new Set(checked.map((item) => item.unitPrice.currency)).size > 1)
    fail('lineItems', 'line items in one currency');
  return checked;
}

function checkMetadata(metadata: unknown): Record<string, string> {
  if (metadata === undefined || metadata === null) return {};
  const { maxKeys, maxKeyLength, maxValueLength } = METADATA_LIMITS;
  if (!isPlainObject(metadata)) fail('metadata', 'a plain object of strings');
  const entries = Object.entries(metadata);
  if (entries.length > maxKeys) fail('metadata', `at most ${maxKeys} keys`);
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > maxKeyLength)
      fail(`metadata.${key}`, `a key of 1 to ${maxKeyLength} characters`);
    if (typeof value !== 'string' || value.length > maxValueLength)
      fail(`metadata.${key}`, `a string of at most ${maxValueLength} characters`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

function checkExpiry(expiresInSeconds: unknown): number {
  const { min, max } = CHECKOUT_EXPIRY_SECONDS;
  if (expiresInSeconds === undefined) return CHECKOUT_EXPIRY_SECONDS.default * 1000;
  if (!isIntegerFrom(expiresInSeconds, min, max))
    fail('expiresInSeconds', `an integer from ${min} to ${max}`);
  return expiresInSeconds * 1000;
}

function checkOrigin(origin: unknown, allowedOrigins: ReadonlySet<string>): string | null {
  if (origin === undefined || origin === null) return null;
  if (typeof origin !== 'string' || !allowedOrigins.has(origin)) {
    const allowed = [...allowedOrigins].join(', ') || 'none: the relay has no allowedOrigins';
    fail('origin', `one of the relay's allowedOrigins (${allowed})`);
  }
  return origin;
}

/** `input` checked, or a TypeError naming the field; `allowedOrigins` are the relay's, as origins. */
export function checkCheckoutInput(
  input: unknown,
  allowedOrigins: ReadonlySet<string>,
): CheckedCheckoutInput {
  if (!isPlainObject(input))
    fail('input', 'an object { lineItems, reference, metadata?, expiresInSeconds?, origin? }');
  const { reference } = input;
  if (typeof reference !== 'string' || !REFERENCE_PATTERN.test(reference))
    fail('reference', '1 to 64 characters of A-Z, a-z, 0-9, _ . : and -');
  return {
    lineItems: checkLineItems(input.lineItems),
    reference,
    metadata: checkMetadata(input.metadata),
    expiresInMs: checkExpiry(input.expiresInSeconds),
    origin: checkOrigin(input.origin, allowedOrigins),
  };
}
