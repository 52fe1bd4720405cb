/**
 * The three engines a shopper's phone may run, as web-test-runner launchers,
 * each from the system's own packages (nothing downloads a browser):
 *
 * - chromium: Debian's chromium through Playwright;
 * - firefox: Debian's firefox-esr through puppeteer-core over WebDriver BiDi
 *   (no geckodriver);
 * - webkit: WebKitGTK's MiniBrowser through Debian's WebKitWebDriver, on a
 *   virtual screen of its own that the launcher starts and stops.
 *
 * And a reporter that prints, and records for scripts/test-browser.mjs, one
 * line per engine: how many tests passed, failed and were skipped; and the
 * `browser-engine` command, which tells a test the engine it runs in.
 */
import { appendFileSync } from 'node:fs';
import { chromeLauncher } from '@web/test-runner-chrome';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import * as puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, findChromium } from './chromium.mjs';
import { findFirefox } from './firefox.mjs';
import { startWebKitDriver, WEBKIT_CAPABILITIES } from './webkit.mjs';

/** The engines, in the order `npm run test:browser` runs them. */
export const ENGINES = ['chromium', 'firefox', 'webkit'];

/** WebdriverLauncher that starts its own WebKitWebDriver and screen, and ends them when the run ends. */
class WebKitLauncher extends WebdriverLauncher {
  constructor() {
    // WebKitWebDriver speaks classic WebDriver only; webdriverio would otherwise ask for BiDi first.
    super({
      capabilities: { ...WEBKIT_CAPABILITIES, 'wdio:enforceWebDriverClassic': true },
      logLevel: 'error',
    });
  }

  async initialize(config, testFiles) {
    this.webkit = await startWebKitDriver();
    Object.assign(this.options, {
      protocol: 'http',
      hostname: this.webkit.hostname,
      port: this.webkit.port,
      path: '/',
    });
    await super.initialize(config, testFiles);
    this.name = 'WebKit';
  }

  async stop() {
    try {
      await super.stop();
    } finally {
      await this.webkit?.stop();
    }
  }
}

/** The launcher for `engine`; throws for a name that is not one of {@link ENGINES}. */
export function engineLauncher(engine) {
  switch (engine) {
    case 'chromium':
      return playwrightLauncher({
        product: 'chromium',
        launchOptions: { executablePath: findChromium(), headless: true, args: CHROMIUM_ARGS },
      });
    case 'firefox':
      return chromeLauncher({
        puppeteer,
        launchOptions: { browser: 'firefox', executablePath: findFirefox(), headless: true },
      });
    case 'webkit':
      return new WebKitLauncher();
    default:
      throw new Error(`BROWSER_ENGINE is ${engine}; it must be one of ${ENGINES.join(', ')}.`);
  }
}

/** Answers the tests' `browser-engine` command with `engine`. */
export function engineCommandPlugin(engine) {
  return {
    name: 'browser-engine-command',
    executeCommand({ command }) {
      return command === 'browser-engine' ? engine : undefined;
    },
  };
}

function countTests(suite, counts) {
  if (!suite) return;
  for (const test of suite.tests) {
    if (test.skipped) counts.skipped += 1;
    else if (test.passed) counts.passed += 1;
    else counts.failed += 1;
  }
  for (const child of suite.suites) countTests(child, counts);
}

/**
 * Prints `engine: N passed, N failed, N skipped` when the run stops, and
 * appends it as a JSON line to the file BROWSER_SUITE_RESULTS names, if any.
 * A test file that could not run at all counts as one failure.
 */
export function engineSummaryReporter(engine) {
  return {
    stop({ sessions }) {
      const counts = { passed: 0, failed: 0, skipped: 0 };
      for (const session of sessions) {
        countTests(session.testResults, counts);
        if (!session.passed && session.errors.length > 0) counts.failed += session.errors.length;
      }
      console.log(`${engine}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
      const resultsFile = process.env.BROWSER_SUITE_RESULTS;
      if (resultsFile) appendFileSync(resultsFile, `${JSON.stringify({ engine, ...counts })}\n`);
    },
  };
}
