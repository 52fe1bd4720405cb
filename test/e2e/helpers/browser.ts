/**
 * One headless Chromium per test file, found the way every browser test finds
 * it (scripts/chromium.mjs), and a fresh context per test so no
 * `sessionStorage` or cookie leaks from one test to the next.
 */
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../../scripts/chromium.mjs';

/** Launches the found Chromium, headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
}

/** A context the size of a laptop screen, or of a phone with `phone: true` (390 px wide, or `width`). */
export function newDemoContext(
  browser: Browser,
  options: { phone?: boolean; width?: number } = {},
): Promise<BrowserContext> {
  return browser.newContext(
    options.phone
      ? {
          viewport: { width: options.width ?? 390, height: 844 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
        }
      : { viewport: { width: 1280, height: 900 } },
  );
}
