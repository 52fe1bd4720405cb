/**
 * Validation of every request body the sandbox accepts, with `zod/mini`.
 * The service's interface leaves the rules open; these are ours (limits in
 * `ORDER_INPUT_LIMITS`). The first problem becomes a `400` with a dotted `param`.
 */
import * as z from 'zod/mini';
import { INTERNATIONAL_PHONE_PATTERN, isLocalMobileNumber } from '../shared/ghana-mobile-money.js';
import {
  CURRENCIES,
  ID_PREFIX,
  ISSUERS,
  ORDER_ID_PATTERN,
  ORDER_INPUT_LIMITS,
  PAGE_SIZE_MAX,
  PAGE_SIZE_MIN,
} from '../shared/service-contract.js';
import { issueParam } from '../shared/wire.js';

const moneySchema = z.object(
  {
    currency: z.enum(CURRENCIES, `currency must be one of: ${CURRENCIES.join(', ')} (lowercase).`),
    value: z
      .int('value must be a whole number of minor units (pesewas).')
      .check(
        z.gte(
          ORDER_INPUT_LIMITS.priceValueMin,
          `value must be at least ${ORDER_INPUT_LIMITS.priceValueMin}.`,
        ),
      ),
  },
  'price must be a money object { currency, value }.',
);

const lineItemSchema = z.object(
  {
    type: z.literal('product', 'type must be "product".'),
    product: z.object(
      {
        name: nameSchema(ORDER_INPUT_LIMITS.productNameMaxLength),
        price: moneySchema,
        quantity: z
          .int('quantity must be a whole number.')
          .check(
            z.gte(1, 'quantity must be at least 1.'),
            z.lte(
              ORDER_INPUT_LIMITS.quantityMax,
              `quantity must be at most ${ORDER_INPUT_LIMITS.quantityMax}.`,
            ),
          ),
      },
      'product must be an object { name, price, quantity }.',
    ),
  },
  'Each line item must be an object { type, product }.',
);

const lineItemsSchema = z.array(lineItemSchema, 'line_items must be an array of line items.').check(
  z.minLength(1, 'line_items must hold at least one line item.'),
  z.maxLength(
    ORDER_INPUT_LIMITS.lineItemsMax,
    `line_items must hold at most ${ORDER_INPUT_LIMITS.lineItemsMax} line items.`,
  ),
  z.refine(
    (items) => orderTotal(items) !== undefined,
    'The order total is too large: it must not exceed 9007199254740991 minor units.',
  ),
);

const customerDataSchema = z.object(
  {
    name: nameSchema(ORDER_INPUT_LIMITS.customerNameMaxLength),
    phone_number: z
      .string('phone_number must be a string.')
      .check(
        z.regex(INTERNATIONAL_PHONE_PATTERN, 'phone_number must be in international form, +233XXXXXXXXX.'),
      ),
  },
  'customer_data must be an object { name, phone_number }.',
);

const paymentMethodDataSchema = z.object(
  {
    type: z.literal('mobile_money', 'type must be "mobile_money".'),
    mobile_money: z.object(
      {
        issuer: z.enum(ISSUERS, `issuer must be one of: ${ISSUERS.join(', ')}.`),
        number: z
          .string('number must be a string.')
          .check(
            z.refine(
              isLocalMobileNumber,
              'number must be a Ghanaian mobile-money number in local form, 0XXXXXXXXX, of a known network prefix.',
            ),
          ),
      },
      'mobile_money must be an object { issuer, number }.',
    ),
  },
  'payment_method_data must be an object { type, mobile_money }.',
);

/** The service's order creation input, as the sandbox accepts it. Unknown fields are dropped. */
export const orderCreationSchema = z
  .object({
    execute_payment: z.optional(z.boolean('execute_payment must be true or false.')),
    customer_data: z.optional(customerDataSchema),
    payment_method_data: z.optional(paymentMethodDataSchema),
    line_items: lineItemsSchema,
  })
  .check(
    z.refine((input) => input.execute_payment !== true || input.payment_method_data !== undefined, {
      message: 'payment_method_data is required when execute_payment is true.',
      path: ['payment_method_data'],
    }),
  );

/** A validated order creation input. */
export type OrderCreationInput = z.infer<typeof orderCreationSchema>;

/** `/orders/lookup`'s body. */
export const orderLookupSchema = z.object({
  order_id: z
    .string('order_id must be a string.')
    .check(z.regex(ORDER_ID_PATTERN, 'order_id must be an order identifier, or_….')),
});

/** `/orders/page`'s body (1–256, more is 400). */
export const orderPageSchema = z.object({
  page_number: z
    .int('page_number must be a whole number.')
    .check(z.gte(1, 'page_number must be 1 or more: page 1 holds the newest orders.')),
  page_size: z
    .int('page_size must be a whole number.')
    .check(
      z.gte(PAGE_SIZE_MIN, `page_size must be at least ${PAGE_SIZE_MIN}.`),
      z.lte(PAGE_SIZE_MAX, `page_size must be at most ${PAGE_SIZE_MAX}.`),
    ),
});

/** `/otp/lookup`'s body (ours: the service's interface shows none). */
export const otpLookupSchema = z.object({
  otp_id: z
    .string('otp_id must be a string.')
    .check(z.regex(idPattern(ID_PREFIX.otp), `otp_id must be an OTP identifier, ${ID_PREFIX.otp}….`)),
});

/** `/chimes/lookup`'s body (ours: the service's interface shows none). */
export const chimeLookupSchema = z.object({
  chime_id: z
    .string('chime_id must be a string.')
    .check(z.regex(idPattern(ID_PREFIX.chime), `chime_id must be a chime identifier, ${ID_PREFIX.chime}….`)),
});

/** `{ order_id }` of the control surface's approve and prompt. */
export const controlOrderSchema = orderLookupSchema;

/** `{ order_id, reason? }` of the control surface's decline. */
export const controlDeclineSchema = z.object({
  order_id: orderLookupSchema.shape.order_id,
  reason: z.optional(
    z.enum(['declined', 'insufficient_funds'], 'reason must be declined or insufficient_funds.'),
  ),
});

/** A parse result: the value, or the first problem as the error shape's `param` and message. */
export type BodyParseResult<T> = { ok: true; value: T } | { ok: false; param: string; message: string };

/** Parses a JSON body with a schema, keeping only the first problem. */
export function parseBody<T>(schema: z.ZodMiniType<T>, body: unknown): BodyParseResult<T> {
  const result = z.safeParse(schema, body);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  if (!issue) return { ok: false, param: '', message: 'The body is not valid.' };
  return { ok: false, param: issueParam(issue), message: issue.message };
}

/** The sum of price × quantity, or undefined when it would pass Number.MAX_SAFE_INTEGER. */
export function orderTotal(items: readonly { product: { price: { value: number }; quantity: number } }[]) {
  let total = 0;
  for (const { product } of items) {
    total += product.price.value * product.quantity;
    if (!Number.isSafeInteger(total)) return undefined;
  }
  return total;
}

function idPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}[A-Za-z0-9]{1,64}$`);
}

/** A product's or a customer's `name`: trimmed, then 1 to `maxLength` characters. */
function nameSchema(maxLength: number) {
  return z
    .string('name must be a string.')
    .check(
      z.trim(),
      z.minLength(1, 'name must not be empty.'),
      z.maxLength(maxLength, `name must be at most ${maxLength} characters.`),
    );
}
