/**
 * The payments service's shapes, as the service client checks
 * them. Every object is loose: fields the specification does not show are
 * kept, not rejected, so a fuller service does not break the client. Which
 * creation fields are mandatory is not shown, so the client leaves that to the
 * service and checks only the types of what is sent.
 */
import * as z from 'zod/mini';
import { PAGE_SIZE_MAX, PAGE_SIZE_MIN } from '../../shared/service-contract.js';

/** A currency code as the service writes it. */
export const CURRENCY_PATTERN = /^[a-z]{3}$/;
/** An order id as the service client takes and reads it. */
export const SERVICE_ORDER_ID_PATTERN = /^or_.+$/;

/** Money: lowercase currency code and an integer value in minor units. */
export const moneySchema = z.looseObject({
  currency: z.string().check(z.regex(CURRENCY_PATTERN, 'Use a lowercase three-letter currency code.')),
  value: z.int('Give the value as an integer number of minor units.'),
});
/** A money object as the service sends it. */
export type Money = z.infer<typeof moneySchema>;

/** A product line (`type: 'product'` with an object named like the type). */
export const productLineItemSchema = z.looseObject({
  type: z.literal('product'),
  product: z.looseObject({
    name: z.string().check(z.minLength(1, 'Give the product a name.')),
    price: moneySchema,
    quantity: z.int().check(z.positive('The quantity must be at least 1.')),
  }),
});
/** A product line as the service sends it. */
export type ProductLineItem = z.infer<typeof productLineItemSchema>;

/** Creation input, every field typed, none required by the client. */
export const orderCreateInputSchema = z.looseObject({
  execute_payment: z.optional(z.boolean()),
  customer_data: z.optional(
    z.looseObject({
      name: z.string(),
      phone_number: z.string(),
    }),
  ),
  payment_method_data: z.optional(
    z.looseObject({
      type: z.string(),
      mobile_money: z.optional(
        z.looseObject({
          issuer: z.string(),
          number: z.string(),
        }),
      ),
    }),
  ),
  line_items: z.optional(z.array(productLineItemSchema)),
});

/**
 * What `orders.create` takes. Written out rather than inferred, so callers'
 * own interfaces fit; fields beyond these are still sent and kept at runtime.
 */
export interface OrderCreateInput {
  execute_payment?: boolean;
  customer_data?: { name: string; phone_number: string };
  payment_method_data?: { type: string; mobile_money?: { issuer: string; number: string } };
  line_items?: readonly {
    type: 'product';
    product: { name: string; price: { currency: string; value: number }; quantity: number };
  }[];
}

const orderIdSchema = z.string().check(z.regex(SERVICE_ORDER_ID_PATTERN, 'An order id starts with or_.'));

/** `/orders/lookup` body. */
export const orderLookupInputSchema = z.object({ order_id: orderIdSchema });

/** `/orders/page` body (page 1 is the newest; at most 256 a page). */
export const orderPageInputSchema = z.object({
  page_number: z.int().check(z.gte(1, 'page_number starts at 1.')),
  page_size: z
    .int()
    .check(
      z.gte(PAGE_SIZE_MIN, `page_size is at least ${PAGE_SIZE_MIN}.`),
      z.lte(PAGE_SIZE_MAX, `page_size is at most ${PAGE_SIZE_MAX}.`),
    ),
});

/** The nested payment of an order (only `status` is shown). */
export const paymentSchema = z.looseObject({ status: z.string() });

/** An order as a page shows it (the fields the service requires are required). */
export const orderSchema = z.looseObject({
  id: orderIdSchema,
  status: z.string(),
  initiated_at: z.string(),
  completed_at: z.optional(z.string()),
  line_item_group: z.looseObject({
    products_count: z.int(),
    total: moneySchema,
  }),
  customer: z.optional(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      phone_number: z.string(),
    }),
  ),
  payment: z.optional(paymentSchema),
});
/** An order as a page lists it. */
export type Order = z.infer<typeof orderSchema>;

/** An order read through lookup or creation: the same, with its `payment`. */
export const orderWithPaymentSchema = z.extend(orderSchema, { payment: paymentSchema });
/** An order with its nested payment, as lookup and creation answer it. */
export type OrderWithPayment = z.infer<typeof orderWithPaymentSchema>;

/** `/orders/lookup` answer. */
export const orderLookupAnswerSchema = z.looseObject({ order: orderWithPaymentSchema });
/** What `orders.lookup()` resolves to. */
export type OrderLookupAnswer = z.infer<typeof orderLookupAnswerSchema>;

/** `/orders/new` answer (not shown by the service's interface; see ORDER_CREATE_ANSWER_FIELD). */
export const orderCreateAnswerSchema = orderLookupAnswerSchema;
/** The service's answer to `/orders/new`. */
export type OrderCreateAnswer = z.infer<typeof orderCreateAnswerSchema>;
/** What `orders.create()` resolves to: the service's answer, and whether it was a replay. */
export type OrderCreateResult = OrderCreateAnswer & {
  /**
   * True when the service answered from an earlier request with the same
   * idempotency key (`Idempotent-Replayed: true`) instead of creating now:
   * the order may have been seen before.
   */
  replayed: boolean;
};

/** `/orders/page` answer (the array is named after the resource). */
export const orderPageAnswerSchema = z.looseObject({
  page: z.looseObject({
    page_number: z.int(),
    page_size: z.int(),
    orders: z.array(orderSchema),
  }),
});
/** What `orders.page()` resolves to. */
export type OrderPageAnswer = z.infer<typeof orderPageAnswerSchema>;

/** `/otp/lookup` body (not shown; see LOOKUP_ID_FIELDS). */
export const otpLookupInputSchema = z.object({ otp_id: z.string().check(z.minLength(1)) });
/** `/chimes/lookup` body (not shown; see LOOKUP_ID_FIELDS). */
export const chimeLookupInputSchema = z.object({ chime_id: z.string().check(z.minLength(1)) });

/** OTP and chime records are not shown: any JSON object is accepted and kept whole. */
export const unshownRecordAnswerSchema = z.looseObject({});
/** What `otp.lookup()` and `chimes.lookup()` resolve to: the record as the service sent it. */
export type UnshownRecordAnswer = z.infer<typeof unshownRecordAnswerSchema>;

/** The service's error body, read leniently: a service may add fields. */
export const serviceErrorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    type: z.string(),
    param: z.optional(z.string()),
  }),
});
