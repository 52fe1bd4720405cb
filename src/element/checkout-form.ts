/**
 * The form's logic without the DOM: what the shopper typed, which field is
 * wrong and why, and the intent it becomes. The rules are those of
 * `checkoutIntentSchema` (src/shared/wire.ts), which the relay judges with;
 * test/node/element/checkout-form.test.ts holds the two to the same verdicts,
 * so the form never sends what the relay would refuse. (The schema itself
 * stays out of the browser bundle: zod/mini costs 4.5 KiB gzip of a 16 KiB budget.)
 */

import {
  type CustomerNameProblem,
  customerNameProblem,
  normalizeCustomerName,
} from '../shared/customer-name.js';
import { parseGhanaMobileNumber } from '../shared/ghana-mobile-money.js';
import type { Issuer } from '../shared/service-contract.js';
import type { CheckoutIntent } from '../shared/wire.js';

/** The `name`s of the form controls. */
export type FieldName = 'customer_name' | 'number' | 'issuer';

/** The fields in the order they appear: the first invalid one gets focus. */
export const FIELD_ORDER: readonly FieldName[] = ['customer_name', 'number', 'issuer'];

/** What the shopper has entered. */
export interface FormValues {
  customer_name: string;
  number: string;
  /** '' until detected or chosen. */
  issuer: Issuer | '';
}

/** Why a field is invalid: the key of its message in `PayCheckoutStrings`. */
export type FieldError =
  | 'nameRequired'
  | 'nameTooLong'
  | 'nameInvalid'
  | 'numberRequired'
  | 'numberInvalid'
  | 'numberTooManyPrompts'
  | 'issuerRequired';

const NAME_ERRORS: Readonly<Record<CustomerNameProblem, FieldError>> = {
  required: 'nameRequired',
  tooLong: 'nameTooLong',
  invalid: 'nameInvalid',
};

/** The invalid fields and why. */
export type FieldErrors = Partial<Record<FieldName, FieldError>>;

/** The intent a form becomes, or the fields that keep it from being sent. */
export type FormCheck = { ok: true; intent: CheckoutIntent } | { ok: false; errors: FieldErrors };

/**
 * Checks the whole form, including the networks the page allows; on success
 * returns the intent exactly as it will be sent: name NFC and trimmed, number in
 * local form for the payment method and international form for the customer.
 */
export function checkForm(values: FormValues, allowedIssuers: readonly Issuer[], cart: unknown): FormCheck {
  const errors: FieldErrors = {};
  const name = normalizeCustomerName(values.customer_name);
  const nameProblem = customerNameProblem(name);
  if (nameProblem) errors.customer_name = NAME_ERRORS[nameProblem];
  const number = parseGhanaMobileNumber(values.number);
  if (!number) errors.number = values.number.trim() ? 'numberInvalid' : 'numberRequired';
  const { issuer } = values;
  if (!issuer || !allowedIssuers.includes(issuer)) errors.issuer = 'issuerRequired';
  if (!number || !issuer || errors.customer_name || errors.issuer) return { ok: false, errors };
  return {
    ok: true,
    intent: {
      customer_data: { name, phone_number: number.international },
      payment_method_data: { type: 'mobile_money', mobile_money: { issuer, number: number.local } },
      cart: cart ?? null,
    },
  };
}

/** The create request's body for `intent`; undefined when its cart is not JSON (a cycle, a BigInt). */
export function createBody(intent: CheckoutIntent): string | undefined {
  try {
    return JSON.stringify(intent);
  } catch {
    return undefined;
  }
}

/** The form field a relay `error.param` points at, if any. */
export function fieldForParam(param: string | undefined): FieldName | undefined {
  switch (param) {
    case 'customer_data.name':
      return 'customer_name';
    case 'customer_data.phone_number':
    case 'payment_method_data.mobile_money.number':
      return 'number';
    case 'payment_method_data.mobile_money.issuer':
      return 'issuer';
    default:
      return undefined;
  }
}

/** A refusal of the relay about one field, beyond `400` with `param`: the prompt limit's `429`. */
export interface FieldRefusal {
  error: FieldError;
  /** For `numberTooManyPrompts`: whole minutes until the number may be asked again. */
  waitMinutes?: number;
}

/** The relay's code for too many payment prompts to one number. */
export const TOO_MANY_PAYMENT_REQUESTS = 'too_many_payment_requests';

/** `pay-error`'s code when the merchant's `priceCart` refused the cart (`400` with `param` `cart…`). */
export const CART_REJECTED = 'cart_rejected';

/** The message of a field the relay refused (`400` with `param`), whatever the form thought of it. */
export function refusedFieldError(field: FieldName): FieldError {
  if (field === 'customer_name') return 'nameInvalid';
  if (field === 'number') return 'numberInvalid';
  return 'issuerRequired';
}

/** A local number as a receipt shows it, all but its prefix and last four digits hidden: `024 ••• 4567`; undefined for none. */
export function maskNumber(local: string | undefined): string | undefined {
  return local && `${local.slice(0, 3)} ••• ${local.slice(-4)}`;
}

/** `0241234567` → `024 123 4567`, the way Ghanaian numbers are read out. */
export function formatLocalNumber(local: string): string {
  return /^0\d{9}$/.test(local) ? `${local.slice(0, 3)} ${local.slice(3, 6)} ${local.slice(6)}` : local;
}
