/**
 * The form model as a Lit reactive controller: what the shopper typed, the
 * network suggested by the number's prefix or chosen by hand, and which
 * fields are wrong. The rules themselves are `checkout-form.ts`'s; this
 * decides when a field is judged (on leaving it, or at once once it shows
 * an error) and what prefills may overwrite.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { detectIssuer, parseGhanaMobileNumber } from '../shared/ghana-mobile-money.js';
import type { Issuer } from '../shared/service-contract.js';
import type { CheckoutIntent } from '../shared/wire.js';
import {
  checkForm,
  FIELD_ORDER,
  type FieldErrors,
  type FieldName,
  type FieldRefusal,
  type FormValues,
  formatLocalNumber,
  refusedFieldError,
} from './checkout-form.js';

/** An element with a form in its shadow root. */
export type CheckoutFormHost = ReactiveControllerHost & { readonly renderRoot: ParentNode };

/** What the form reads from its element. */
export interface CheckoutFormOptions {
  /** The networks the page allows (`issuers`). */
  allowedIssuers(): Issuer[];
  /** False once the form is sent: a blur then is the form going away, not the shopper. */
  editable(): boolean;
}

/** The checkout form's values and errors, for one element. */
export class CheckoutFormController implements ReactiveController {
  /** What the form shows. */
  values: FormValues = { customer_name: '', number: '', issuer: '' };
  /** The fields shown as invalid, and why. */
  errors: FieldErrors = {};
  /** Minutes the shopper is asked to wait when the number got too many prompts. */
  waitMinutes = 0;
  readonly #host: CheckoutFormHost;
  readonly #options: CheckoutFormOptions;
  /** The field to focus once the form is rendered: the first invalid one, or one the shopper should change. */
  #focusAfterUpdate: FieldName | undefined;
  /** Fields the shopper typed in: prefills no longer overwrite them, and leaving them judges them. */
  readonly #edited = new Set<FieldName>();
  #issuerChosenByShopper = false;

  constructor(host: CheckoutFormHost, options: CheckoutFormOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  hostUpdated(): void {
    const field = this.#focusAfterUpdate;
    this.#focusAfterUpdate = undefined;
    if (field) this.#host.renderRoot.querySelector<HTMLElement>(`[name="${field}"]`)?.focus();
  }

  /** `input` and `change` of any control. */
  readonly onInput = (event: Event): void => {
    const control = event.target as HTMLInputElement | HTMLSelectElement;
    const field = control.name as FieldName;
    this.#edited.add(field);
    if (field === 'issuer') this.#issuerChosenByShopper = control.value !== '';
    this.#set({ ...this.values, [field]: control.value });
    // An error already shown follows the typing, so a fixed field clears at
    // once; new errors wait until the shopper leaves the field. A number
    // typed in may also settle the network.
    if (this.errors[field]) this.#checkField(field);
    if (field === 'number' && this.errors.issuer) this.#checkField('issuer');
  };

  /** `blur` of a text field: judge it, and show a valid number the way it is read out. */
  readonly onBlur = (event: FocusEvent): void => {
    const field = (event.target as HTMLInputElement).name as FieldName;
    // Chromium blurs a focused field as the form is removed for the next
    // screen: only a shopper leaving a field of the open form counts.
    if (!this.#edited.has(field) || !this.#options.editable()) return;
    this.#checkField(field);
    const number = field === 'number' && parseGhanaMobileNumber(this.values.number);
    if (number) this.#set({ ...this.values, number: formatLocalNumber(number.local) });
  };

  /** Prefills fill what the shopper has not typed in themselves; the network follows. */
  prefill(customerName: string, phone: string): void {
    const values = { ...this.values };
    if (!this.#edited.has('customer_name')) values.customer_name = customerName ?? '';
    if (!this.#edited.has('number')) values.number = phone ?? '';
    this.#set(values);
  }

  /** Shows what an attempt sends (its body), after a reload: the shopper's own input, not the prefills. */
  showSent(body: string): void {
    try {
      const { customer_data, payment_method_data } = JSON.parse(body) as CheckoutIntent;
      const { issuer, number } = payment_method_data.mobile_money;
      this.values = { customer_name: customer_data.name, number: formatLocalNumber(number), issuer };
      this.#edited.add('customer_name').add('number');
      this.#issuerChosenByShopper = true;
    } catch {
      // Not an intent: the form keeps the prefills.
    }
  }

  /** The intent to send; or undefined, with every invalid field marked and the first one focused. */
  check(cart: unknown): CheckoutIntent | undefined {
    const check = checkForm(this.values, this.#options.allowedIssuers(), cart);
    this.#setErrors(check.ok ? {} : check.errors);
    if (check.ok) return check.intent;
    this.focus(FIELD_ORDER.find((field) => check.errors[field]));
  }

  /** The relay refused `field` (`400` with `param`, or the prompt limit), whatever the form thought of it: marked and focused. */
  refuse(field: FieldName, refusal?: FieldRefusal): void {
    this.waitMinutes = refusal?.waitMinutes ?? 0;
    this.#setErrors({ [field]: refusal?.error ?? refusedFieldError(field) });
    this.focus(field);
  }

  /** Focuses `field` once the form is rendered. */
  focus(field: FieldName | undefined): void {
    this.#focusAfterUpdate = field;
  }

  /** Clears every error message, for a new attempt. */
  clearErrors(): void {
    this.#setErrors({});
  }

  /** Forgets what the shopper typed in by hand (`reset()`): prefills apply again. */
  forgetEdits(): void {
    this.#edited.clear();
    this.#issuerChosenByShopper = false;
  }

  #set(values: FormValues): void {
    values.issuer = this.#suggestedIssuer(values);
    this.values = values;
    this.#host.requestUpdate();
  }

  #setErrors(errors: FieldErrors): void {
    this.errors = errors;
    this.#host.requestUpdate();
  }

  #checkField(field: FieldName): void {
    const check = checkForm(this.values, this.#options.allowedIssuers(), null);
    const errors = { ...this.errors };
    if (check.ok || !check.errors[field]) delete errors[field];
    else errors[field] = check.errors[field];
    this.#setErrors(errors);
  }

  /** The network to show: the shopper's choice, else the one the number's prefix suggests. */
  #suggestedIssuer({ number, issuer }: FormValues): Issuer | '' {
    const allowed = this.#options.allowedIssuers();
    if (this.#issuerChosenByShopper && issuer && allowed.includes(issuer)) return issuer;
    const detected = detectIssuer(number);
    if (detected && allowed.includes(detected)) return detected;
    return allowed.length === 1 ? (allowed[0] ?? '') : '';
  }
}
