/**
 * The demo page's cumulative layout shift from load to a usable form, read
 * with a `layout-shift` observer while the script and the catalogue are held
 * back until what came before them has painted: the order a slow phone sees
 * them in, without waiting on the clock. The end-to-end suite holds it under
 * a limit; the element benchmark reports it.
 */
import type { Page } from 'playwright-core';
import { DemoPage } from './demo-page.js';

/** A request the caller lets through when it says so. */
function gate(): { open(): void; opened: Promise<void> } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Resolves once the page has drawn a frame after everything it did so far. */
function painted(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

/** The page's cumulative layout shift so far: the shifts no recent input explains, summed. */
function layoutShift(page: Page): Promise<number> {
  return page.evaluate(() => {
    // A buffered observer hands over every shift recorded since the page began.
    const observer = new PerformanceObserver(() => undefined);
    observer.observe({ type: 'layout-shift', buffered: true });
    const shifts = observer.takeRecords() as (PerformanceEntry & {
      value: number;
      hadRecentInput: boolean;
    })[];
    observer.disconnect();
    return shifts.filter((shift) => !shift.hadRecentInput).reduce((sum, shift) => sum + shift.value, 0);
  });
}

/**
 * Opens the demo at `url` in `page` (a fresh page, no mobile emulation:
 * Chromium counts its viewport set-up as input, which would hide the first
 * shifts) and gives its layout shift once the form is usable: first the page
 * as its HTML and styles draw it, then the element defined and drawn, then
 * the catalogue.
 */
export async function demoLayoutShift(page: Page, url: string): Promise<number> {
  const script = gate();
  const catalogue = gate();
  await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
    await script.opened;
    await route.continue();
  });
  await page.route('**/api/demo/config', async (route) => {
    await catalogue.opened;
    await route.continue();
  });
  await page.goto(url, { waitUntil: 'commit' });
  // The page as its HTML and styles draw it, before any script.
  await page.waitForFunction(() => performance.getEntriesByType('paint').length > 0);
  await painted(page);
  script.open();
  // The element, defined and drawn, before the catalogue arrives.
  await page.waitForFunction(() =>
    Boolean(document.querySelector('pay-checkout')?.shadowRoot?.querySelector('form')),
  );
  await painted(page);
  catalogue.open();
  const demo = new DemoPage(page);
  await demo.ready();
  await demo.control('customer_name').waitFor();
  await painted(page);
  return layoutShift(page);
}
