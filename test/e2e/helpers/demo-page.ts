/**
 * A harness for the demo page, so the tests read like what a shopper does:
 * open the page, fill the checkout, pay, answer the phone, read the events.
 * Playwright's CSS locators pierce the element's open shadow root, and the
 * controls are found by the `name`s the element fixes.
 */
import type { ConsoleMessage, Locator, Page, Response } from 'playwright-core';

/** What went wrong in the page while a test ran: console errors, uncaught errors, CSP violations. */
export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  cspViolations: string[];
}

/** Collected answers the page loaded, for the "no secret key" checks. */
export interface LoadedResponse {
  url: string;
  contentType: string;
  body: string;
}

declare global {
  interface Window {
    /** Filled by the init script of {@link DemoPage.watch}. */
    __cspViolations?: string[];
  }
}

/** Default wait for a state that needs the sandbox, a poll or two and a busy CPU. */
export const STATE_TIMEOUT_MS = 30_000;

/** The demo page in one tab. */
export class DemoPage {
  readonly page: Page;
  readonly checkout: Locator;
  readonly problems: PageProblems = { consoleErrors: [], pageErrors: [], cspViolations: [] };
  readonly responses: Promise<LoadedResponse>[] = [];

  constructor(page: Page) {
    this.page = page;
    this.checkout = page.locator('pay-checkout');
  }

  /** Starts recording console errors, uncaught errors, CSP violations and every answer's body. */
  async watch(): Promise<this> {
    await this.page.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) => {
        window.__cspViolations?.push(
          `${event.violatedDirective}: ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`,
        );
      });
    });
    this.page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') this.problems.consoleErrors.push(message.text());
    });
    this.page.on('pageerror', (error) => this.problems.pageErrors.push(error.message));
    this.page.on('response', (response: Response) => {
      this.responses.push(
        response.body().then(
          (body) => ({
            url: response.url(),
            contentType: response.headers()['content-type'] ?? '',
            body: body.toString('utf8'),
          }),
          () => ({ url: response.url(), contentType: '', body: '' }),
        ),
      );
    });
    return this;
  }

  /** Opens the demo at `baseUrl` (with an optional `?query`) and waits until the shop is ready. */
  async open(baseUrl: string, query = ''): Promise<void> {
    await this.page.goto(`${baseUrl}/${query}`);
    await this.ready();
    await this.control('number').waitFor();
  }

  /** Waits until the element is defined and the page has read the catalogue (the element is enabled). */
  async ready(): Promise<void> {
    await this.page.locator('pay-checkout:not([disabled])[state]').waitFor({ timeout: STATE_TIMEOUT_MS });
  }

  /** A control inside the element's shadow root, by its contract name. */
  control(name: 'customer_name' | 'number' | 'issuer'): Locator {
    return this.checkout.locator(`[name="${name}"]`);
  }

  /** The element's submit button. */
  submitButton(): Locator {
    return this.checkout.locator('button[type="submit"]');
  }

  /** Fills the checkout form as a shopper types it. */
  async fill(customer: { name: string; number: string }): Promise<void> {
    await this.control('customer_name').fill(customer.name);
    await this.control('number').fill(customer.number);
  }

  /** Fills the form and presses the pay button. */
  async pay(customer: { name: string; number: string }): Promise<void> {
    await this.fill(customer);
    await this.submitButton().click();
  }

  /** Waits for the element's reflected `state`. */
  async waitForState(state: string, timeout = STATE_TIMEOUT_MS): Promise<void> {
    await this.page.locator(`pay-checkout[state="${state}"]`).waitFor({ timeout });
  }

  /** The element's reflected `state` now. */
  state(): Promise<string | null> {
    return this.checkout.getAttribute('state');
  }

  /** A button inside the element, by its visible text. */
  elementButton(name: RegExp | string): Locator {
    return this.checkout.getByRole('button', { name });
  }

  /** The names of the events in the page's log, oldest first. */
  events(): Promise<string[]> {
    return this.page
      .locator('#event-log > li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-event') ?? ''));
  }

  /** How many times `name` is in the log. */
  async eventCount(name: string): Promise<number> {
    return (await this.events()).filter((event) => event === name).length;
  }

  /** The `orderId` of the first logged event that carries one. */
  async orderId(): Promise<string> {
    const details = await this.page
      .locator('#event-log > li[data-event="pay-created"] .event-log__detail')
      .allTextContents();
    const orderId = details
      .map((detail) => (JSON.parse(detail) as { orderId?: string }).orderId)
      .find(Boolean);
    if (!orderId) throw new Error('No pay-created event with an orderId in the log.');
    return orderId;
  }

  /** The phone mock-up's frame; `data-screen` says what it shows. */
  phone(): Locator {
    return this.page.locator('#phone');
  }

  /** Waits for the phone to show `screen` (`prompt`, `paid`, `failed`, `home`). */
  async waitForPhone(screen: string, timeout = STATE_TIMEOUT_MS): Promise<void> {
    await this.page.locator(`#phone[data-screen="${screen}"]`).waitFor({ timeout });
  }

  /** A button on the phone's prompt. */
  phoneButton(action: 'approve' | 'decline'): Locator {
    return this.page.locator(`#phone-screen button[data-action="${action}"]`);
  }

  /** CSP violations the page reported, from the init script of {@link watch}. */
  async cspViolations(): Promise<string[]> {
    const reported = await this.page.evaluate(() => window.__cspViolations ?? []);
    return [...this.problems.cspViolations, ...reported];
  }

  /** Every answer loaded so far, with its body. */
  loadedResponses(): Promise<LoadedResponse[]> {
    return Promise.all(this.responses);
  }
}
