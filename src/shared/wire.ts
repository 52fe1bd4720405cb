/**
 * The wire between `<pay-checkout>` and the merchant relay.
 * One set of schemas: the element builds and reads with them, the relay
 * validates with them. `zod/mini` keeps the browser free of `eval`.
 */
import * as z from 'zod/mini';
import { hasOnlyShowableCharacters, hasVisibleCharacter, normalizeCustomerName } from './customer-name.js';
import { INTERNATIONAL_PHONE_PATTERN, isLocalMobileNumber } from './ghana-mobile-money.js';
import { ISSUERS, listNetworks } from './networks.js';
import {
  CUSTOMER_NAME_MAX_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
  ORDER_ID_PATTERN,
  PAYMENT_FAILURE_CODES,
} from './service-contract.js';

const customerDataSchema = z.object({
  name: z
    .string('Enter your name.')
    .check(
      z.overwrite(normalizeCustomerName),
      z.minLength(1, 'Enter your name.'),
      z.maxLength(CUSTOMER_NAME_MAX_LENGTH, `Use at most ${CUSTOMER_NAME_MAX_LENGTH} characters.`),
      z.refine(hasOnlyShowableCharacters, 'Enter your name without control or text-direction characters.'),
      z.refine(hasVisibleCharacter, 'Enter your name with at least one letter.'),
    ),
  phone_number: z
    .string('Enter the phone number in international form.')
    .check(
      z.regex(INTERNATIONAL_PHONE_PATTERN, 'Enter the phone number in international form, +233XXXXXXXXX.'),
    ),
});

const mobileMoneySchema = z.object({
  issuer: z.enum(ISSUERS, `Choose the mobile-money network: ${listNetworks('or', 'issuer')}.`),
  number: z
    .string('Enter the mobile-money number.')
    .check(z.refine(isLocalMobileNumber, 'Enter a Ghanaian mobile-money number, like 024 123 4567.')),
});

/** An amount in minor units: what the shopper is charged (`order.amount`). */
export const orderAmountSchema = z.object({ currency: z.string(), value: z.int().check(z.nonnegative()) });
/** An order amount as the relay answers it. */
export type OrderAmount = z.infer<typeof orderAmountSchema>;

/**
 * What the element sends to `create-url`. Unknown fields, such as prices or
 * amounts a page might add, are dropped: the merchant's server prices `cart`.
 */
export const checkoutIntentSchema = z
  .object({
    customer_data: customerDataSchema,
    payment_method_data: z.object({
      type: z.literal('mobile_money', 'Only mobile_money payments are accepted.'),
      mobile_money: mobileMoneySchema,
    }),
    cart: z.optional(z.unknown()),
    /** A server-created checkout's client secret, in place of `cart`: the relay prices the checkout. */
    checkout: z.optional(z.nullable(z.string("Give the checkout's client secret."))),
    /** The amount the shopper saw on the button; another priced total is refused before any prompt (`409 amount_changed`). */
    expected_amount: z.optional(orderAmountSchema),
  })
  .check(
    z.refine(
      (intent) =>
        intent.customer_data.phone_number ===
        `+233${intent.payment_method_data.mobile_money.number.slice(1)}`,
      {
        message: 'The phone number and the mobile-money number must be the same number.',
        path: ['customer_data', 'phone_number'],
      },
    ),
  );

/** A checkout intent as sent on the wire. */
export type CheckoutIntent = z.infer<typeof checkoutIntentSchema>;

/** True for an idempotency key the relay accepts. */
export function isValidIdempotencyKey(key: string | null | undefined): key is string {
  return typeof key === 'string' && IDEMPOTENCY_KEY_PATTERN.test(key);
}

/**
 * A payment as the browser sees it: its status and, for a failure, why
 * (`declined`, `insufficient_funds`). A reason the checkout does not know
 * reads as none rather than refusing the answer, so a fuller service never
 * breaks a checkout.
 */
const paymentSummarySchema = z.object({
  status: z.string(),
  failure_code: z.optional(z.catch(z.optional(z.enum(PAYMENT_FAILURE_CODES)), undefined)),
});
/** A payment as the relay answers it. */
export type PaymentSummary = z.infer<typeof paymentSummarySchema>;

/** A merchant's reference for a checkout: 1–64 characters of `[A-Za-z0-9_.:-]`. */
export const REFERENCE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * `order.amount`, optional: an older relay, or one in another language, may
 * not send it, and one that is malformed reads as none, so the checkout
 * shows the page's amount rather than refusing the answer.
 */
const answeredAmountSchema = z.optional(z.catch(z.optional(orderAmountSchema), undefined));

/** The relay's answer to a create: status fields, the amount charged, the merchant's reference and the token that guards lookups. */
export const createAnswerSchema = z.object({
  order: z.object({
    // The id goes into storage and every lookup: only an id of the service's form is kept.
    id: z.string().check(z.regex(ORDER_ID_PATTERN)),
    status: z.string(),
    amount: answeredAmountSchema,
    payment: paymentSummarySchema,
  }),
  lookup_token: z.string(),
  /** The merchant's reference for the checkout , `null` when it gave none; missing from an older relay. */
  reference: z.optional(z.catch(z.optional(z.nullable(z.string())), undefined)),
});
/** The relay's answer to a create, as read. */
export type CreateAnswer = z.infer<typeof createAnswerSchema>;

/** What the element sends to `lookup-url`. */
export const lookupRequestSchema = z.object({
  order_id: z.string('Give the order_id.').check(z.regex(ORDER_ID_PATTERN, 'Give a valid order_id.')),
  lookup_token: z
    .string('Give the lookup_token.')
    .check(z.minLength(1, 'Give the lookup_token.'), z.maxLength(256, 'The lookup_token is too long.')),
});
/** A lookup request as sent on the wire. */
export type LookupRequest = z.infer<typeof lookupRequestSchema>;

/** The relay's answer to a lookup: status fields only, never customer data. */
export const lookupAnswerSchema = z.object({
  order: z.object({
    id: z.string(),
    status: z.string(),
    completed_at: z.optional(z.string()),
    amount: answeredAmountSchema,
    payment: paymentSummarySchema,
  }),
});
/** The relay's answer to a lookup, as read. */
export type LookupAnswer = z.infer<typeof lookupAnswerSchema>;

/** Error bodies from the relay and the service (the service's error shape, `param` for invalid input). */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    type: z.string(),
    param: z.optional(z.string()),
  }),
});

/**
 * The dotted `param` name of the first issue of a failed parse, as the error
 * shape's `param` carries it: `payment_method_data.mobile_money.number`.
 */
export function issueParam(issue: { path: readonly PropertyKey[] }): string {
  return issue.path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${String(part)}`))
    .join('');
}

/** What the element sends to `price-url`: the cart the merchant's server prices, or a server-created checkout's client secret. */
export const priceRequestSchema = z.object({
  cart: z.optional(z.unknown()),
  checkout: z.optional(z.nullable(z.string())),
});

/** One line of the relay's price: what the merchant returned as a line item, nothing more. */
const pricedLineSchema = z.object({
  name: z.string(),
  quantity: z.int(),
  unit_price: orderAmountSchema,
});

/** The relay's answer to a price request: the total, the line items and the merchant's reference; never metadata. */
export const priceAnswerSchema = z.object({
  amount: orderAmountSchema,
  line_items: z.array(pricedLineSchema),
  reference: z.nullable(z.string()),
});
/** The relay's answer to a price request, as read. */
export type PriceAnswer = z.infer<typeof priceAnswerSchema>;

/** The relay's answer to `GET …/checkouts/<client secret>`: what the checkout sells and where it stands; never metadata or order ids. */
export const checkoutAnswerSchema = z.object({
  amount: orderAmountSchema,
  line_items: z.array(pricedLineSchema),
  reference: z.string(),
  status: z.enum(['open', 'paid', 'expired']),
  /** ISO 8601. */
  expires_at: z.string(),
});
/** The relay's answer to a checkout read, as read. */
export type CheckoutAnswer = z.infer<typeof checkoutAnswerSchema>;

/** The relay's `409` when its price differs from `expected_amount`: the error, and the new amount beside it. */
export const amountChangedSchema = z.object({
  error: z.object({
    code: z.literal('amount_changed'),
    message: z.string(),
    type: z.string(),
    param: z.optional(z.string()),
  }),
  amount: orderAmountSchema,
});
