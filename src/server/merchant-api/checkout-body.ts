/**
 * The body of `POST /v1/checkouts`, checked on the wire before the relay
 * sees it: snake_case fields only (an unknown field, such as `lineItems`, is
 * refused rather than dropped), each error a `400` whose `param` is the
 * dotted path of the field at fault (`line_items[0].unit_price.value`) and
 * whose message says what was expected.
 */
import * as z from 'zod/mini';
import { HttpError } from '../../http/http-error.js';
import { CURRENCIES, ORDER_INPUT_LIMITS } from '../../shared/service-contract.js';
import { issueParam, REFERENCE_PATTERN } from '../../shared/wire.js';
import { CHECKOUT_EXPIRY_SECONDS } from '../checkouts/checkout-input.js';
import type { ServerCheckoutInput } from '../checkouts/server-checkout.js';
import { METADATA_LIMITS } from '../pricing/priced-cart.js';

/** Shortest and longest life of a checkout, in seconds (`expires_in`): the relay's. */
const CHECKOUT_EXPIRES_IN = CHECKOUT_EXPIRY_SECONDS;

/** Longest `sku`: a shop's own product code. */
const SKU_MAX_LENGTH = 64;

const { lineItemsMax, productNameMaxLength, quantityMax, priceValueMin } = ORDER_INPUT_LIMITS;
const { maxKeys, maxKeyLength, maxValueLength } = METADATA_LIMITS;

const nameExpected = `expected a product name of 1 to ${productNameMaxLength} characters`;
const quantityExpected = `expected a whole number from 1 to ${quantityMax}`;
const valueExpected = `expected a whole number of minor units (pesewas) from ${priceValueMin}`;
const skuExpected = `expected null or a sku of 1 to ${SKU_MAX_LENGTH} characters`;
const referenceExpected =
  'expected the shop’s reference for this purchase: 1 to 64 characters of A-Z, a-z, 0-9, _ . : and -';
const expiresExpected = `expected a whole number of seconds from ${CHECKOUT_EXPIRES_IN.min} to ${CHECKOUT_EXPIRES_IN.max}`;
const metadataValueExpected = `expected a string of at most ${maxValueLength} characters`;

const unitPriceSchema = z.strictObject(
  {
    currency: z.enum(CURRENCIES, `expected one of: ${CURRENCIES.join(', ')}`),
    value: z
      .int(valueExpected)
      .check(z.gte(priceValueMin, valueExpected), z.lte(Number.MAX_SAFE_INTEGER, valueExpected)),
  },
  'expected { currency, value }',
);

const lineItemSchema = z.strictObject(
  {
    name: z
      .string(nameExpected)
      .check(z.trim(), z.minLength(1, nameExpected), z.maxLength(productNameMaxLength, nameExpected)),
    quantity: z.int(quantityExpected).check(z.gte(1, quantityExpected), z.lte(quantityMax, quantityExpected)),
    unit_price: unitPriceSchema,
    sku: z.optional(
      z.nullable(
        z.string(skuExpected).check(z.minLength(1, skuExpected), z.maxLength(SKU_MAX_LENGTH, skuExpected)),
      ),
    ),
  },
  'expected { name, quantity, unit_price, sku? }',
);

const lineItemsExpected = `expected 1 to ${lineItemsMax} line items`;

const checkoutBodySchema = z.strictObject({
  line_items: z.array(lineItemSchema, lineItemsExpected).check(
    z.minLength(1, lineItemsExpected),
    z.maxLength(lineItemsMax, lineItemsExpected),
    z.refine(
      (items) => new Set(items.map((item) => item.unit_price.currency)).size <= 1,
      'expected every line item in one currency',
    ),
    z.refine(
      (items) =>
        items.reduce((sum, item) => sum + item.unit_price.value * item.quantity, 0) <=
        Number.MAX_SAFE_INTEGER,
      'expected a total the service can charge',
    ),
  ),
  reference: z.string(referenceExpected).check(z.regex(REFERENCE_PATTERN, referenceExpected)),
  metadata: z.optional(
    z.nullable(
      z
        .record(
          z.string().check(z.minLength(1), z.maxLength(maxKeyLength)),
          z.string(metadataValueExpected).check(z.maxLength(maxValueLength, metadataValueExpected)),
          `expected an object of at most ${maxKeys} string values, keys of 1 to ${maxKeyLength} characters`,
        )
        .check(
          z.refine((metadata) => Object.keys(metadata).length <= maxKeys, `expected at most ${maxKeys} keys`),
        ),
    ),
  ),
  expires_in: z.optional(
    z.nullable(
      z
        .int(expiresExpected)
        .check(
          z.gte(CHECKOUT_EXPIRES_IN.min, expiresExpected),
          z.lte(CHECKOUT_EXPIRES_IN.max, expiresExpected),
        ),
    ),
  ),
  origin: z.optional(
    z.nullable(z.string('expected null or the origin of the shop’s page, such as https://shop.example')),
  ),
});

/** The wire body checked into `relay.checkouts.create`'s input; throws a `400` naming the field. */
export function checkoutInputOf(body: unknown, allowedOrigins: readonly string[]): ServerCheckoutInput {
  const parsed = checkoutBodySchema.safeParse(body);
  if (!parsed.success) {
    const { issues } = parsed.error;
    // An unknown field first: `lineItems` explains the missing `line_items` better than its absence does.
    throw invalidField(issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0]);
  }
  const { line_items, reference, metadata, expires_in, origin } = parsed.data;
  if (origin != null && !allowedOrigins.includes(origin)) {
    const allowed = allowedOrigins.length ? `one of: ${allowedOrigins.join(', ')}` : 'none is configured';
    throw new HttpError('invalidRequest', `origin: expected one of the server’s shop origins (${allowed}).`, {
      param: 'origin',
    });
  }
  return {
    lineItems: line_items.map((item) => ({
      name: item.name,
      quantity: item.quantity,
      unitPrice: { currency: item.unit_price.currency, value: item.unit_price.value },
      sku: item.sku ?? null,
    })),
    reference,
    // null stands for absent, as a backend's JSON encoder may write an unset field.
    ...(metadata == null ? {} : { metadata: { ...metadata } }),
    ...(expires_in == null ? {} : { expiresInSeconds: expires_in }),
    ...(origin == null ? {} : { origin }),
  };
}

/** The `400` of one zod issue: `param` the dotted path (an unknown field's own), the message what was expected. */
function invalidField(issue: z.core.$ZodIssue | undefined): HttpError {
  if (!issue) return new HttpError('invalidRequest', 'The checkout is not valid.');
  if (issue.code === 'unrecognized_keys') {
    const param = issueParam({ path: [...issue.path, issue.keys[0] ?? ''] });
    return new HttpError(
      'invalidRequest',
      `${param}: unknown field. Fields are snake_case: line_items (name, quantity, unit_price, sku), reference, metadata, expires_in, origin.`,
      { param },
    );
  }
  const param = issueParam(issue);
  const where = param === '' ? 'body' : param;
  return new HttpError('invalidRequest', `${where}: ${issue.message}.`, param === '' ? {} : { param });
}

/** The wire's path of a field `relay.checkouts.create` names (`lineItems[0].unitPrice` → `line_items[0].unit_price`). */
function wireParamOf(field: string): string {
  if (field === 'expiresInSeconds') return 'expires_in';
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * The `400` of the relay's own refusal of a checkout (a TypeError
 * `relay.checkouts.create: <field>: expected …`), its field as on the wire.
 */
export function refusedCheckout(error: TypeError): HttpError {
  const named = /^relay\.checkouts\.create: ([\w.[\]]+): (.*)$/s.exec(error.message);
  if (!named?.[1] || named[1] === 'input') {
    return new HttpError('invalidRequest', 'The checkout is not valid.', { cause: error });
  }
  const param = wireParamOf(named[1]);
  return new HttpError('invalidRequest', `${param}: ${named[2]}`, { param, cause: error });
}
