/**
 * Browser tests in real Chromium. The test server mounts the real sandbox and
 * the real relay, so the element talks to the same wire a merchant's page does.
 */
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { CHROMIUM_ARGS, findChromium } from './scripts/chromium.mjs';
import { checkoutTestServer } from './test/browser/checkout-test-server.ts';

const executablePath = findChromium();

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  // The real relay and sandbox, and the test-only routes (test/browser/checkout-test-server.ts).
  middleware: [checkoutTestServer],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' })],
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: { executablePath, headless: true, args: CHROMIUM_ARGS },
    }),
  ],
  concurrency: 1,
  testFramework: { config: { timeout: 15_000 } },
  testsFinishTimeout: 300_000,
};
