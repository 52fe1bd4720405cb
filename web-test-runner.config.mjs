/**
 * Browser tests in one real engine at a time, the one BROWSER_ENGINE names:
 * `chromium` (the default), `firefox` or `webkit`; `npm run test:browser`
 * runs all three in turn (scripts/test-browser.mjs). The test server mounts
 * the real sandbox and the real relay, so the element talks to the same wire
 * a merchant's page does. Every engine is the system's own (Debian's
 * chromium, firefox-esr, webkit2gtk-driver): no tool downloads a browser.
 */
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { defaultReporter } from '@web/test-runner';
import { engineCommandPlugin, engineLauncher, engineSummaryReporter } from './scripts/browser-engines.mjs';
import { checkoutTestServer } from './test/browser/checkout-test-server.ts';

const engine = process.env.BROWSER_ENGINE ?? 'chromium';

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  // The real relay and sandbox, and the test-only routes (test/browser/checkout-test-server.ts).
  middleware: [checkoutTestServer],
  plugins: [
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' }),
    engineCommandPlugin(engine),
  ],
  browsers: [engineLauncher(engine)],
  reporters: [defaultReporter(), engineSummaryReporter(engine)],
  concurrency: 1,
  testFramework: { config: { timeout: 15_000 } },
  testsFinishTimeout: 300_000,
};
