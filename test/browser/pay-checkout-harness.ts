/**
 * Test harness for `<pay-checkout>`: hides the shadow-DOM queries, types like
 * a shopper, drives the real sandbox's control surface and reads the test
 * server's counters, so the tests read like the behaviour they pin.
 */

import { sendKeys } from '@web/test-runner-commands';
import type { CheckoutState } from '../../src/element/checkout-machine.js';
import { PAY_CHECKOUT_EVENT_NAMES, type PayCheckoutEventName } from '../../src/element/events.js';
import type { PayCheckout } from '../../src/element/pay-checkout.component.js';
import { CUSTOMER_NAME } from '../fixtures/checkout-data.js';
import { eventually } from '../fixtures/wait.js';
import type { CreateRecord, Faults } from './checkout-test-server.js';

// Captured before any test installs fake timers: waiting for the real network needs real time.
const realSetTimeout = window.setTimeout.bind(window);
const realFetch = window.fetch.bind(window);

/**
 * Waits real milliseconds, whatever clock a test has installed: only for a
 * window in which nothing may happen (no request, no event), never for
 * something to happen; a slow machine can only hide a bug there, never fail
 * a correct element.
 */
export function realWait(ms: number): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

/** How long the harness polls for a state (test/fixtures/wait.ts) before failing: under the test's 15 s. */
export const STATE_WAIT_MS = 8_000;

/** The element that has focus, looking into shadow roots. */
function deepActiveElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/**
 * Types `text` into the focused field with the real keyboard, one key at a
 * time: each key goes down and up in a command of its own, and the next
 * waits until the field shows it. WebDriver clients type a string by pressing
 * every key before releasing any, and WebKit ignores a key pressed again
 * while it is held: the second `0` of a number never arrived.
 */
export async function typeKeys(text: string): Promise<void> {
  const field = deepActiveElement();
  if (!(field instanceof HTMLInputElement)) throw new Error(`No text field has focus: ${field?.tagName}.`);
  let expected = field.value;
  for (const key of text) {
    expected += key;
    await sendKeys({ press: key });
    await eventually(`the field to show "${expected}" after the key ${key}`, () => field.value === expected, {
      timeoutMs: STATE_WAIT_MS,
    });
  }
}

const whitespace = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

let numberCounter = Math.floor(Math.random() * 90_000);

/**
 * A fresh valid MTN number for this test run, so orders and creates can be
 * counted per test. Its payer waits until the test answers (`payerAnswers`).
 */
export function freshNumber(prefix = '024'): string {
  numberCounter = (numberCounter + 1) % 100_000;
  return `${prefix}57${String(numberCounter).padStart(5, '0')}`;
}

/** `0241234567` → `+233241234567`. */
export function international(local: string): string {
  return `+233${local.replace(/\s/g, '').slice(1)}`;
}

/** The sandbox's payer never answers this number: the tests answer through the control surface. */
export const NEVER_ANSWERS = '0244000003';
/** The sandbox's payer declines this number. */
export const DECLINES = '0244000002';

async function testServer<T>(path: string, body?: unknown): Promise<T> {
  const response = await realFetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** The relay's create requests for a phone number, as the test server saw them. */
export function createsFor(localNumber: string): Promise<CreateRecord[]> {
  return testServer(`/test-server/creates?phone=${encodeURIComponent(international(localNumber))}`);
}

/** The ids of the sandbox's orders for a phone number: exactly-once means one. */
export async function ordersFor(localNumber: string): Promise<string[]> {
  return (
    await testServer<{ ids: string[] }>(
      `/test-server/orders?phone=${encodeURIComponent(international(localNumber))}`,
    )
  ).ids;
}

/** How many lookups the relay has been asked, over the whole run. */
export async function lookupCount(): Promise<number> {
  return (await testServer<{ count: number }>('/test-server/lookups')).count;
}

/** Arms faults on the real wire for the next requests. */
export function armFaults(faults: Partial<Faults>): Promise<Faults> {
  return testServer('/test-server/faults', faults);
}

/** Disarms every fault. */
export function resetFaults(): Promise<Faults> {
  return testServer('/test-server/reset', {});
}

/** The payer answers now, through the sandbox's control surface; a decline may say why (`insufficient_funds`). */
export async function payerAnswers(
  orderId: string,
  answer: 'approve' | 'decline',
  reason?: 'declined' | 'insufficient_funds',
): Promise<void> {
  await testServer(`/sandbox/_sandbox/payments/${answer}`, { order_id: orderId, ...(reason && { reason }) });
}

/** Creates an order through the relay directly, as another tab or the merchant's own page would. */
export async function createOrderThroughRelay(
  localNumber: string,
): Promise<{ orderId: string; lookupToken: string }> {
  const response = await realFetch('/api/checkout/orders', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
    body: JSON.stringify({
      customer_data: { name: CUSTOMER_NAME, phone_number: international(localNumber) },
      payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: localNumber } },
      cart: null,
    }),
  });
  const answer = (await response.json()) as { order: { id: string }; lookup_token: string };
  return { orderId: answer.order.id, lookupToken: answer.lookup_token };
}

/** Records the element's events, in order. */
export class EventLog {
  readonly events: { type: PayCheckoutEventName; detail: Record<string, unknown> }[] = [];

  constructor(target: EventTarget) {
    for (const type of PAY_CHECKOUT_EVENT_NAMES) {
      target.addEventListener(type, (event) => {
        this.events.push({ type, detail: (event as CustomEvent).detail });
      });
    }
  }

  /** How many times `type` fired. */
  count(type: PayCheckoutEventName): number {
    return this.events.filter((event) => event.type === type).length;
  }

  /** The `detail`s of `type`, in order. */
  details(type: PayCheckoutEventName): Record<string, unknown>[] {
    return this.events.filter((event) => event.type === type).map((event) => event.detail);
  }

  /** The states of `pay-state-change`, starting with the first `previous`. */
  get states(): string[] {
    const changes = this.details('pay-state-change');
    return changes.length
      ? [String(changes[0]?.previous), ...changes.map((change) => String(change.state))]
      : [];
  }
}

/** Shadow-DOM access and shopper actions for one `<pay-checkout>`. */
export class PayCheckoutHarness {
  constructor(readonly element: PayCheckout) {}

  get root(): ShadowRoot {
    const root = this.element.shadowRoot;
    if (!root) throw new Error('<pay-checkout> has no shadow root.');
    return root;
  }

  /** The first node matching `selector` inside the element. */
  query<T extends Element = HTMLElement>(selector: string): T | null {
    return this.root.querySelector<T>(selector);
  }

  /** A form control by its contract `name`. */
  control(name: 'customer_name' | 'number'): HTMLInputElement;
  control(name: 'issuer'): HTMLSelectElement;
  control(name: string): HTMLInputElement | HTMLSelectElement {
    const control = this.query<HTMLInputElement>(`[name="${name}"]`);
    if (!control) throw new Error(`No control named ${name} in state ${this.element.state}.`);
    return control;
  }

  get form(): HTMLFormElement | null {
    return this.query<HTMLFormElement>('form');
  }

  get submitButton(): HTMLButtonElement {
    const button = this.query<HTMLButtonElement>('button[type="submit"]');
    if (!button) throw new Error(`No submit button in state ${this.element.state}.`);
    return button;
  }

  /** The heading of the current screen. */
  get heading(): HTMLElement {
    const heading = this.query('h2');
    if (!heading) throw new Error('No heading.');
    return heading;
  }

  get headingText(): string {
    return whitespace(this.heading.textContent);
  }

  /** The one polite live region. */
  get liveRegion(): HTMLElement {
    const region = this.query('[role="status"]');
    if (!region) throw new Error('No live region.');
    return region;
  }

  /** All visible text of the element, whitespace collapsed. */
  get text(): string {
    return whitespace(this.root.textContent);
  }

  /** The error message tied to a field through aria-describedby, '' when none. */
  fieldError(name: 'customer_name' | 'number' | 'issuer'): string {
    const control = this.control(name as 'issuer');
    const ids = (control.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return ids
      .map((id) => this.root.getElementById(id))
      .filter((node) => node?.classList.contains('error'))
      .map((node) => whitespace(node?.textContent))
      .join(' ');
  }

  /** The element that has focus inside the shadow root, if any. */
  get focused(): Element | null {
    return this.root.activeElement;
  }

  /** A button by its visible text. */
  button(label: string): HTMLButtonElement {
    const button = [...this.root.querySelectorAll('button')].find(
      (node) => whitespace(node.textContent) === label,
    );
    if (!button) throw new Error(`No button "${label}" in state ${this.element.state}: ${this.text}`);
    return button;
  }

  /** Types into a field as a shopper would (input events), then leaves it. */
  async type(name: 'customer_name' | 'number', value: string): Promise<void> {
    const control = this.control(name);
    control.focus();
    control.value = value;
    control.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
    await this.element.updateComplete;
    control.blur();
    await this.element.updateComplete;
  }

  /** Picks a network in the list. */
  async choose(issuer: string): Promise<void> {
    const select = this.control('issuer');
    select.value = issuer;
    select.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
    await this.element.updateComplete;
  }

  /** Fills the form with a valid name and `number`. */
  async fill(number: string, name = CUSTOMER_NAME): Promise<void> {
    await this.type('customer_name', name);
    await this.type('number', number);
  }

  /** Clicks the pay button. */
  async pay(): Promise<void> {
    this.submitButton.click();
    await this.element.updateComplete;
  }

  /** Waits (real time) until the element is in `state`. */
  async waitForState(state: CheckoutState, timeoutMs?: number): Promise<void> {
    await eventually(
      `state ${state} (now ${this.element.state}: ${this.text})`,
      () => this.element.state === state,
      {
        timeoutMs: timeoutMs ?? STATE_WAIT_MS,
      },
    );
    await this.element.updateComplete;
  }

  /** The order id the element shows (timeout, paid, error screens). */
  get shownOrderId(): string {
    return whitespace(this.query('dd')?.textContent);
  }
}

/**
 * Watches the page's requests without changing what goes on the wire: each
 * answer is read in full before the element gets it, so "settled" means the
 * element has everything it will get. Lets tests with a fake clock wait for
 * the real network, and count lookups.
 */
export class NetworkWatch {
  readonly urls: string[] = [];
  #inFlight = 0;
  readonly #original = window.fetch;

  constructor() {
    window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      this.urls.push(String(input instanceof Request ? input.url : input));
      this.#inFlight++;
      try {
        const response = await this.#original.call(window, input, init);
        const body = await response.arrayBuffer();
        return new Response(body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      } finally {
        this.#inFlight--;
      }
    };
  }

  /** Requests to paths ending with `suffix` (`/lookup`, `/orders`). */
  count(suffix: string): number {
    return this.urls.filter((url) => url.endsWith(suffix)).length;
  }

  /** Waits until no request is in flight, then lets the element react. */
  async settled(): Promise<void> {
    await eventually('the network to settle', () => this.#inFlight === 0, { timeoutMs: STATE_WAIT_MS });
    // The answers are whole in memory (read above): a few ms cover the element's microtasks and render.
    await realWait(5);
  }

  /** Puts the page's fetch back. */
  restore(): void {
    window.fetch = this.#original;
  }
}
