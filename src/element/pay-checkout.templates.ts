/**
 * What `<pay-checkout>` shows, as pure functions of a `CheckoutView`: the
 * form while nothing is sent or the create is on its way, then one status
 * panel per state. No state and no side effects here: the element builds the
 * view, these functions render it. Their indentation is for reading; the
 * build strips it (scripts/minify-templates.mjs).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { NETWORKS } from '../shared/networks.js';
import { CUSTOMER_NAME_MAX_LENGTH, type Issuer, paymentFailureCode } from '../shared/service-contract.js';
import type { CheckoutAttempt } from './checkout-attempt.js';
import { type FieldErrors, type FieldName, formatLocalNumber } from './checkout-form.js';
import type { CheckoutFormController } from './checkout-form-controller.js';
import type { CheckoutState, ErrorState } from './checkout-machine.js';
import type { CheckoutSession } from './checkout-session.js';
import { formatAmount } from './format-amount.js';
import type { FailureReason, PayCheckoutStrings } from './locale/strings.js';

/** Everything a render needs: the element's settings, the session's state and the form's. */
export interface CheckoutView {
  text: PayCheckoutStrings;
  /** The locale the texts and amounts are in. */
  locale: string;
  session: Pick<
    CheckoutSession,
    'state' | 'attempt' | 'connection' | 'secondsLeft' | 'checkAgain' | 'othersOpen' | 'amountChanged'
  >;
  form: Pick<CheckoutFormController, 'values' | 'errors' | 'waitMinutes' | 'onSubmit' | 'onInput' | 'onBlur'>;
  /** The amount the page shows now, formatted; '' when it gave none. */
  amount: string;
  /** The items of a server-created checkout as the relay priced them, each `name × quantity`, for the form; none before. */
  items: string[] | undefined;
  /** The networks offered. */
  issuers: Issuer[];
  disabled: boolean;
  /** True while "Use another number" asks the shopper to confirm. */
  confirming: boolean;
  /** "Use another number", on the waiting and timeout screens: first asks to confirm, then starts over. */
  onUseAnotherNumber(): void;
  /** "Keep waiting": backs out of "Use another number". */
  onKeepWaiting(): void;
  /** "Try again": after `failed`, a new attempt; in `error`, whatever the error allows. */
  onTryAgain(): void;
}

/**
 * The whole shadow tree: the live region and the current screen. The region
 * says what a screen asks the shopper to act on, never its heading (read as
 * focus moves to it); the offline note is a part of its own, so coming and
 * going it never makes the region say the rest again.
 */
export function renderCheckout(view: CheckoutView): TemplateResult {
  const { session, text } = view;
  const { status } = session.state;
  // A note the shopper must act on is a part of its own: the offline note, and on the receipt, while
  // another order of the checkout is open, to decline its prompt.
  const note =
    status === 'requires_action' && session.connection === 'offline'
      ? text.offline
      : status === 'paid' && session.othersOpen && text.declineOtherRequest;
  return html`
    <div lang=${view.locale}>
      <div class=visually-hidden role=status aria-live=polite>${messageOf(view)}${note ? ` ${note}` : ''}</div>
      ${renderScreen(view)}
    </div>
  `;
}

/** What each state asks the shopper to know or do: the line under its heading, and what the live region says. */
function messageOf(view: CheckoutView): string | undefined {
  const { text, session } = view;
  const { state, attempt } = session;
  switch (state.status) {
    case 'idle':
      return formNote(view);
    case 'submitting':
      return text.submitting;
    case 'requires_action': {
      const { issuer, again } = attempt?.phase === 'created' ? attempt : {};
      const number = shownNumber(attempt);
      return again
        ? text.askedAgain(number)
        : text.requiresActionBody(number, issuer ? NETWORKS[issuer].name : '');
    }
    case 'paid': {
      // The amount charged (the relay's once an answer carried it, else the page's as the attempt
      // began); paid more than once: said at once, and announced, before the list of the payments.
      const body = text.paidBody(formatAmount(attempt?.amount, view.locale));
      return attempt?.phase === 'settled' && attempt.alsoPaid ? `${body} ${text.paidMoreThanOnce}` : body;
    }
    case 'failed':
      return text.failedReason(failureReason(attempt));
    case 'timeout':
      return text.timeoutBody;
    case 'error':
      return errorMessage(text, state);
  }
}

/** The note on the form: the relay's new price (no prompt was sent), or an earlier prompt still open. */
function formNote({ session, text }: CheckoutView): string {
  return session.amountChanged ? text.amountChanged : session.othersOpen ? text.earlierRequestOpen : '';
}

/** The heading of each state after the form. */
function titleOf(state: StatusState, text: PayCheckoutStrings): string {
  return {
    requires_action: text.requiresActionTitle,
    paid: text.paidTitle,
    failed: text.failedTitle,
    timeout: text.timeoutTitle,
    error: text.errorTitle,
  }[state];
}

/** A state after the form, shown on a status panel. */
type StatusState = Exclude<CheckoutState, 'idle' | 'submitting'>;

/** The form while nothing is sent or the create is on its way; a status panel with a heading after. */
function renderScreen(view: CheckoutView): TemplateResult {
  const { status } = view.session.state;
  if (status === 'idle' || status === 'submitting') return renderForm(view);
  return html`
    <div class=${`status state-${status}`} part=status>
      <h2 id=heading tabindex=-1>${titleOf(status, view.text)}</h2>
      ${renderStatusBody(view)}
    </div>
  `;
}

function renderForm(view: CheckoutView): TemplateResult {
  const { text, amount, items, form } = view;
  const { values, errors } = form;
  const submitting = view.session.state.status === 'submitting';
  // What the shopper pays for, before any prompt: a server-created checkout's items (a list from storage, checked).
  return html`
    <form part=form novalidate aria-labelledby=heading @submit=${form.onSubmit}>
      <h2 id=heading tabindex=-1>${text.formTitle}</h2>
      ${Array.isArray(items) ? html`<p class=hint>${items.join(', ')}</p>` : nothing}
      ${amount ? html`<p class=amount part=amount><span>${text.amountLabel}</span> <span>${amount}</span></p>` : nothing}
      ${formNote(view) ? html`<p class=note>${formNote(view)}</p>` : nothing}
      <fieldset ?disabled=${view.disabled}>
        ${renderInput(view, 'customer_name', submitting)}
        ${renderInput(view, 'number', submitting)}
        <div class=field part=field>
          <label part=label for=issuer>${text.issuerLabel}</label>
          <select
            part="input issuer"
            id=issuer
            name=issuer
            required
            ?disabled=${submitting}
            aria-invalid=${!!errors.issuer}
            aria-describedby=issuer-error
            @change=${form.onInput}
          >
            <option value="" ?selected=${!values.issuer}>${text.issuerPlaceholder}</option>
            ${view.issuers.map(
              (issuer) => html`
                <option value=${issuer} ?selected=${values.issuer === issuer}>${NETWORKS[issuer].name}</option>
              `,
            )}
          </select>
          ${renderFieldError(text, errors, 'issuer')}
        </div>
        <button part=submit type=submit aria-busy=${submitting} aria-disabled=${submitting}>
          ${submitting ? html`<span class=spinner aria-hidden=true></span>` : nothing}${text.pay(amount)}
        </button>
      </fieldset>
    </form>
  `;
}

function renderInput({ text, form }: CheckoutView, name: 'customer_name' | 'number', readonly: boolean) {
  const isNumber = name === 'number';
  // `type="tel"` brings up the phone keypad by itself: no `inputmode` needed. The number's
  // error comes before its hint, whose place it takes (see the styles): the hint hides behind it.
  return html`
    <div class=field part=field>
      <label part=label for=${name}>${isNumber ? text.numberLabel : text.nameLabel}</label>
      <input
        part=input
        id=${name}
        name=${name}
        required
        type=${isNumber ? 'tel' : 'text'}
        autocomplete=${isNumber ? 'tel' : 'name'}
        .value=${form.values[name]}
        ?readonly=${readonly}
        aria-invalid=${!!form.errors[name]}
        aria-describedby=${isNumber ? 'number-hint number-error' : `${name}-error`}
        @input=${form.onInput}
        @blur=${form.onBlur}
      />
      ${renderFieldError(text, form.errors, name, form.waitMinutes)}
      ${isNumber ? html`<p id=number-hint class=hint>${text.numberHint}</p>` : nothing}
    </div>
  `;
}

function renderFieldError(
  text: PayCheckoutStrings,
  errors: FieldErrors,
  name: FieldName,
  waitMinutes = 0,
): TemplateResult {
  const error = errors[name];
  const message = !error
    ? ''
    : error === 'nameTooLong'
      ? text.nameTooLong(CUSTOMER_NAME_MAX_LENGTH)
      : error === 'numberTooManyPrompts'
        ? text.numberTooManyPrompts(waitMinutes)
        : text[error];
  return html`<p id=${`${name}-error`} class=error part=error>${message}</p>`;
}

/** What a state after the form says under its heading. */
function renderStatusBody(view: CheckoutView): TemplateResult {
  const { text } = view;
  const { state } = view.session;
  switch (state.status) {
    case 'requires_action':
      return renderRequiresAction(view);
    case 'paid':
      // Another order of the checkout may still prompt the payer: they decline it.
      return html`
        <p>${messageOf(view)}</p>
        ${renderPaidAgain(view)}${view.session.othersOpen ? html`<p class=note>${text.declineOtherRequest}</p>` : nothing}${renderOrder(view)}
      `;
    case 'failed':
      return html`
        <p>${messageOf(view)}</p>
        ${renderOrder(view)}${renderButton(text.tryAgain, view.onTryAgain)}
      `;
    case 'timeout':
      // Never a dead end: check again, another number, or the network's USSD menu.
      return html`
        <p>${messageOf(view)}</p>
        ${renderUssdFallback(view)}${renderOrder(view)}${renderButton(text.checkAgain, view.session.checkAgain)}
        ${renderAnotherNumber(view)}
      `;
    default:
      // `error`, the last state after the form.
      return renderError(view, state as ErrorState);
  }
}

function renderRequiresAction(view: CheckoutView): TemplateResult {
  const { session, text } = view;
  const { connection } = session;
  return html`
    <p>${messageOf(view)}</p>
    ${renderUssdFallback(view)}
    <p class=countdown role=timer>${text.timeLeft(formatCountdown(session.secondsLeft))}</p>
    ${connection === 'ok' ? nothing : html`<p class=note>${connection === 'offline' ? text.offline : text.connectionTrouble}</p>`}
    ${renderOrder(view)}${renderAnotherNumber(view)}
  `;
}

/** The number the order's prompt went to, as read out; '' when unknown (after `resume()`). */
function shownNumber(attempt: CheckoutAttempt | undefined): string {
  const number = attempt?.phase === 'created' && attempt.localNumber;
  return number ? formatLocalNumber(number) : '';
}

/**
 * "Use another number", or once pressed, the question before it: the
 * earlier request may still be approved, and both would be paid. Its own
 * two buttons answer, the safe one first.
 */
function renderAnotherNumber(view: CheckoutView): TemplateResult {
  const { text } = view;
  if (!view.confirming) return renderButton(text.useAnotherNumber, view.onUseAnotherNumber, 'another');
  return html`
    <div role=group aria-labelledby=confirm>
      <p id=confirm class=note tabindex=-1>${text.confirmAnother(shownNumber(view.session.attempt))}</p>
      ${renderButton(text.keepWaiting, view.onKeepWaiting)}${renderButton(text.useAnotherNumber, view.onUseAnotherNumber, 'another')}
    </div>
  `;
}

/** On the receipt when the shopper paid more than once, under the message saying so: each payment, amount, masked number and order id. */
function renderPaidAgain({ session: { attempt }, locale }: CheckoutView): TemplateResult | typeof nothing {
  if (attempt?.phase !== 'settled' || !attempt.alsoPaid?.length) return nothing;
  return html`
    <ul>
      ${[attempt, ...attempt.alsoPaid].map(
        ({ amount, masked, orderId }) => html`
          <li>${formatAmount(amount, locale)} · ${masked} · ${orderId}</li>
        `,
      )}
    </ul>
  `;
}

/** The network's USSD menu, where the payer approves when no prompt reaches the phone; nothing when the network is unknown. */
function renderUssdFallback({ session: { attempt }, text }: CheckoutView): TemplateResult | typeof nothing {
  const network = attempt?.phase === 'created' && attempt.issuer && NETWORKS[attempt.issuer];
  return network ? html`<p class=hint>${text.ussdFallback(network.ussdCode, network.name)}</p>` : nothing;
}

/**
 * One screen per cause: a refusal offers nothing to press; an order that
 * exists is only ever checked again; a refused cart shows the merchant's
 * own message (as text, never markup) and "Try again"; a create is sent
 * again under the same key when that may work, else the shopper starts over.
 */
function renderError(view: CheckoutView, { cause }: ErrorState): TemplateResult {
  const { text } = view;
  const lookup = cause === 'lookup';
  const action =
    cause === 'config'
      ? nothing
      : lookup
        ? renderButton(text.checkAgain, view.session.checkAgain)
        : renderButton(text.tryAgain, view.onTryAgain);
  return html`
    <p part=error>${messageOf(view)}</p>
    ${lookup ? renderOrder(view) : nothing}${action}
  `;
}

/** An error's message: the merchant's own words for a refused cart (as text, never markup), else ours. */
function errorMessage(
  text: PayCheckoutStrings,
  { cause, retryable, message }: ErrorState,
): string | undefined {
  if (cause === 'cart') return message;
  if (cause === 'lookup') return text.errorLookup;
  return retryable ? text.errorRetryable : text.errorConfiguration;
}

/**
 * The order and the amount charged, on every screen once the order exists
 * (as on the receipt's message: the relay's, else the page's); beside the
 * id, the merchant's reference, which reads aloud where the id mixes 0 and
 * O; once settled, the items the relay priced and the time.
 */
function renderOrder({ text, locale, session: { attempt } }: CheckoutView): TemplateResult {
  const amount = formatAmount(attempt?.amount, locale);
  const reference = attempt?.reference;
  const settledAt = attempt?.phase === 'settled' && attempt.settledAt;
  // On the receipt, from storage, which the page shares: only a list is listed.
  const items = settledAt && Array.isArray(attempt?.items) && attempt.items;
  return html`
    <dl>
      <dt>${text.orderLabel}</dt>
      <dd>${attempt?.phase === 'draft' ? '' : attempt?.orderId}</dd>
      ${reference ? html`<dt>${text.referenceLabel}</dt><dd>${reference}</dd>` : nothing}
      ${amount ? html`<dt>${text.amountLabel}</dt><dd part=amount>${amount}</dd>` : nothing}
      ${items ? html`<dt>${text.itemsLabel}</dt>${items.map((item) => html`<dd>${item}</dd>`)}` : nothing}
      ${settledAt ? html`<dt>${text.timeLabel}</dt><dd>${text.time(settledAt)}</dd>` : nothing}
    </dl>
  `;
}

/** An action of a status panel; with an `id`, the secondary one, which focus can come back to. */
function renderButton(label: string, onClick: () => void, id?: string): TemplateResult {
  return html`
    <button id=${id ?? nothing} class=${id ? 'secondary' : ''} part=action type=button @click=${onClick}>${label}</button>
  `;
}

/** The reason a terminal failure gives the shopper: its status, or for `failed` the relay's reason. */
function failureReason(attempt: CheckoutAttempt | undefined): FailureReason {
  const { paymentStatus, failureCode } = attempt?.phase === 'settled' ? attempt : {};
  if (paymentStatus === 'cancelled' || paymentStatus === 'expired') return paymentStatus;
  // Checked again: storage is shared with the page and with other versions of the element.
  return paymentFailureCode(failureCode) ?? 'failed';
}

/** `m:ss`, as the countdown shows it. */
export function formatCountdown(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
