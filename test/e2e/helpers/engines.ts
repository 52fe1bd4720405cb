/**
 * The demo page in Firefox and in WebKit, behind one small interface, so one
 * end-to-end path runs in both. Each engine is the system's own: Debian's
 * firefox-esr through puppeteer-core over WebDriver BiDi (no geckodriver),
 * and WebKitGTK through Debian's WebKitWebDriver with webdriverio, on a
 * virtual screen of its own (scripts/webkit.mjs). Nothing downloads a
 * browser or a driver. Chromium runs the same paths through Playwright
 * (./browser.ts).
 */
import * as puppeteer from 'puppeteer-core';
import { remote } from 'webdriverio';
import { findFirefox } from '../../../scripts/firefox.mjs';
import { startWebKitDriver, WEBKIT_CAPABILITIES } from '../../../scripts/webkit.mjs';

/** A control of the checkout form, by its contract name. */
export type ControlName = 'customer_name' | 'number';

/** One tab of a browser, with just what the end-to-end path needs. */
export interface EngineTab {
  /** Loads `url` and waits for the page's load event. */
  open(url: string): Promise<void>;
  /** Reloads the page and waits for its load event. */
  reload(): Promise<void>;
  /** Types `value` into a control inside `<pay-checkout>`'s shadow root. */
  fill(name: ControlName, value: string): Promise<void>;
  /** Clicks `<pay-checkout>`'s submit button. */
  clickPay(): Promise<void>;
  /** The value of a JavaScript expression in the page; it must be JSON-shaped. */
  evaluate<T>(expression: string): Promise<T>;
  /** Closes the browser and whatever was started for it. */
  close(): Promise<void>;
}

/** An engine the demo's end-to-end path runs in besides Chromium. */
export interface Engine {
  name: 'firefox' | 'webkit';
  /** Starts the browser with one tab. */
  open(): Promise<EngineTab>;
}

const control = (name: ControlName) => `[name="${name}"]`;
const SUBMIT = 'button[type="submit"]';

/** Debian's Firefox ESR, headless, through puppeteer-core over WebDriver BiDi. */
export const firefox: Engine = {
  name: 'firefox',
  async open() {
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: findFirefox(),
      headless: true,
    });
    try {
      const page = await browser.newPage();
      return {
        async open(url) {
          await page.goto(url, { waitUntil: 'load' });
        },
        async reload() {
          await page.reload({ waitUntil: 'load' });
        },
        async fill(name, value) {
          await page.locator(`pay-checkout >>> ${control(name)}`).fill(value);
        },
        async clickPay() {
          await page.locator(`pay-checkout >>> ${SUBMIT}`).click();
        },
        evaluate<T>(expression: string) {
          return page.evaluate(expression) as Promise<T>;
        },
        close: () => browser.close(),
      };
    } catch (error) {
      await browser.close();
      throw error;
    }
  },
};

/** WebKitGTK's MiniBrowser through Debian's WebKitWebDriver, with webdriverio. */
export const webkit: Engine = {
  name: 'webkit',
  async open() {
    const driver = await startWebKitDriver();
    try {
      const browser = await remote({
        protocol: 'http',
        hostname: driver.hostname,
        port: driver.port,
        path: '/',
        // WebKitWebDriver speaks classic WebDriver only; webdriverio would otherwise ask for BiDi first.
        capabilities: { ...WEBKIT_CAPABILITIES, 'wdio:enforceWebDriverClassic': true },
        logLevel: 'error',
      });
      const checkout = () => browser.$('pay-checkout');
      return {
        async open(url) {
          await browser.url(url);
        },
        async reload() {
          await browser.refresh();
        },
        async fill(name, value) {
          await checkout().shadow$(control(name)).setValue(value);
        },
        async clickPay() {
          await checkout().shadow$(SUBMIT).click();
        },
        evaluate<T>(expression: string) {
          return browser.execute(`return (${expression});`) as Promise<T>;
        },
        async close() {
          try {
            await browser.deleteSession();
          } finally {
            await driver.stop();
          }
        },
      };
    } catch (error) {
      await driver.stop();
      throw error;
    }
  },
};

/** Polls the page until `expression` is true; fails with `what` after `timeoutMs`. */
export async function waitInPage(
  tab: EngineTab,
  expression: string,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await tab.evaluate<boolean>(`Boolean(${expression})`))) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
