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
import type { DraftAttempt } from './checkout-attempt.js';
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
import type { CheckoutState } from './checkout-machine.js';
import { allowedIssuers } from './issuers.js';

/**
 * The element the form belongs to, as the form reads it: its shadow root, the
 * prefills, the networks the page allows (`issuers`), its `state` (once the
 * form is sent it is no longer `idle`, and a blur then is the form going
 * away, not the shopper) and its `submit()`.
 */
export type CheckoutFormHost = ReactiveControllerHost & {
  readonly renderRoot: ParentNode;
  readonly customerName: string;
  readonly phone: string;
  readonly issuers?: string | undefined;
  readonly state: CheckoutState;
  submit(): Promise<void>;
};

/** What takes focus after a render, by `id`: a field (its `id` is its `name`), the screen's heading, "Use another number" or its question. */
export type FocusTarget = FieldName | 'heading' | 'another' | 'confirm';

/** The checkout form's values and errors, for one element. */
export class CheckoutFormController implements ReactiveController {
  /** What the form shows. */
  values: FormValues = { customer_name: '', number: '', issuer: '' };
  /** The fields shown as invalid, and why. */
  errors: FieldErrors = {};
  /** Minutes the shopper is asked to wait when the number got too many prompts. */
  waitMinutes = 0;
  readonly #host: CheckoutFormHost;
  /** What to focus once rendered: the first invalid field, one the shopper should change, or a new screen's heading. */
  #focusAfterUpdate: FocusTarget | undefined;
  /**
   * Fields the shopper typed in or chose: prefills no longer overwrite them,
   * leaving them judges them, and a network chosen by hand beats the one the
   * number suggests.
   */
  readonly #edited = new Set<FieldName>();

  constructor(host: CheckoutFormHost) {
    this.#host = host;
    host.addController(this);
  }

  hostUpdated(): void {
    const target = this.#focusAfterUpdate;
    this.#focusAfterUpdate = undefined;
    if (target) this.#host.renderRoot.querySelector<HTMLElement>(`#${target}`)?.focus();
  }

  /** `submit` of the form: the element's `submit()`, which validates first. */
  readonly onSubmit = (event: SubmitEvent): void => {
    event.preventDefault();
    void this.#host.submit();
  };

  /** `input` and `change` of any control. */
  readonly onInput = (event: Event): void => {
    const control = event.target as HTMLInputElement | HTMLSelectElement;
    const field = control.name as FieldName;
    this.#edited.add(field);
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
    if (!this.#edited.has(field) || this.#host.state !== 'idle') return;
    this.#checkField(field);
    const number = field === 'number' && parseGhanaMobileNumber(this.values.number);
    if (number) this.#set({ ...this.values, number: formatLocalNumber(number.local) });
  };

  /**
   * Before each render: the prefills (`customer-name`, `phone`) fill what the
   * shopper has not typed in themselves, and the network follows the number
   * and `issuers`. Either may change at any time.
   */
  hostUpdate(): void {
    const { customerName, phone } = this.#host;
    const values = { ...this.values };
    if (!this.#edited.has('customer_name')) values.customer_name = customerName ?? '';
    if (!this.#edited.has('number')) values.number = phone ?? '';
    this.#set(values);
  }

  /** Shows what a draft sends, after a reload: the shopper's own input, not the prefills. */
  showSent({ body, localNumber, issuer }: Pick<DraftAttempt, 'body' | 'localNumber' | 'issuer'>): void {
    try {
      const { customer_data } = JSON.parse(body) as CheckoutIntent;
      this.values = { customer_name: customer_data.name, number: formatLocalNumber(localNumber), issuer };
      for (const field of FIELD_ORDER) this.#edited.add(field);
    } catch {
      // Not an intent: the form keeps the prefills.
    }
  }

  /**
   * The intent to send, the number now shown the way it is read out (the
   * form comes back after "Try again"); or undefined, with every invalid
   * field marked and the first one focused.
   */
  check(cart: unknown): CheckoutIntent | undefined {
    const check = checkForm(this.values, this.#allowedIssuers, cart);
    this.#setErrors(check.ok ? {} : check.errors);
    if (!check.ok) return void this.focus(FIELD_ORDER.find((field) => check.errors[field]));
    const { number } = check.intent.payment_method_data.mobile_money;
    this.#set({ ...this.values, number: formatLocalNumber(number) });
    return check.intent;
  }

  /** The relay refused `field` (`400` with `param`, or the prompt limit), whatever the form thought of it: marked and focused. */
  refuse(field: FieldName, refusal?: FieldRefusal): void {
    this.waitMinutes = refusal?.waitMinutes ?? 0;
    this.#setErrors({ [field]: refusal?.error ?? refusedFieldError(field) });
    this.focus(field);
  }

  /**
   * Focuses `field`, or the heading of the screen, once the element is
   * rendered: the one place that moves focus after a render. Undefined
   * cancels a move asked for earlier.
   */
  focus(target: FocusTarget | undefined): void {
    this.#focusAfterUpdate = target;
  }

  /** Clears every error message, for a new attempt. */
  clearErrors(): void {
    this.#setErrors({});
  }

  /** A fresh form (`reset()`): no errors, and the prefills over whatever the shopper typed from the next render. */
  reset(): void {
    this.#edited.clear();
    this.clearErrors();
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
    const check = checkForm(this.values, this.#allowedIssuers, null);
    this.#setErrors({ ...this.errors, [field]: check.ok ? undefined : check.errors[field] });
  }

  get #allowedIssuers(): Issuer[] {
    return allowedIssuers(this.#host.issuers);
  }

  /** The network to show: the shopper's choice, else the one the number's prefix suggests. */
  #suggestedIssuer({ number, issuer }: FormValues): Issuer | '' {
    const allowed = this.#allowedIssuers;
    if (this.#edited.has('issuer') && issuer && allowed.includes(issuer)) return issuer;
    const detected = detectIssuer(number);
    if (detected && allowed.includes(detected)) return detected;
    return allowed.length === 1 ? (allowed[0] ?? '') : '';
  }
}
