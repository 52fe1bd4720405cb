/**
 * `npm run screenshots`: a PNG of each state of the demo page into
 * docs/screenshots/, taken from the same server `npm start` runs, with its
 * default settings, driven the way a visitor drives it. The shopper uses the
 * test number that never answers by itself, so each shot shows exactly the
 * state it is named after, whatever the machine's speed. A shot of a screen
 * this version of the element does not have (its `act` answers false) is
 * skipped and said so, not failed.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { DEFAULT_SANDBOX_APPROVE_MS, startDemoServer } from '../demo/server/start-demo-server.js';
import { launchChromium, newDemoContext } from '../test/e2e/helpers/browser.js';
import { DemoPage } from '../test/e2e/helpers/demo-page.js';

const OUTPUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
/** The sandbox's payer who never answers: the visitor answers on the phone. */
const SHOPPER = { name: 'Ama Mensah', number: '024 400 0003' };

/** One screenshot: its file name, the page's query, and what to do before the shot. */
interface Shot {
  file: string;
  query: string;
  phone?: boolean;
  fullPage?: boolean;
  /** A selector to scroll to the top of the screen before the shot; default the page's top. */
  scrollTo?: string;
  /** Brings the page to the state shown; false when the element has no such screen. */
  act?: (demo: DemoPage) => Promise<boolean | undefined>;
}

/** A second number, which the sandbox's payer approves after its delay (or at once on the phone). */
const OTHER_NUMBER = '024 555 0101';

async function askForPayment(demo: DemoPage, network?: 'telecel' | 'at'): Promise<undefined> {
  await demo.fill(SHOPPER);
  // Test numbers work on every network: pick another one to show its prompt.
  if (network) await demo.control('issuer').selectOption(network);
  await demo.submitButton().click();
  await demo.waitForState('requires_action');
  await demo.waitForPhone('prompt');
  return undefined;
}

/**
 * The first prompt left open, "Use another number", the second approved:
 * the receipt tells the shopper to decline the first, where the element
 * watches every order of a checkout. False when the receipt says nothing of it.
 */
async function payWithSecondNumber(demo: DemoPage): Promise<boolean> {
  await askForPayment(demo);
  await demo.elementButton('Use another number').click();
  await demo.waitForState('idle');
  await demo.control('number').fill(OTHER_NUMBER);
  await demo.submitButton().click();
  await demo.waitForState('requires_action');
  await demo.waitForPhone('prompt');
  await demo.phoneButton('approve').click();
  await demo.waitForState('paid');
  const receipt = (await demo.checkout.locator('[part~="status"]').textContent()) ?? '';
  return /declin/i.test(receipt);
}

const SHOTS: Shot[] = [
  { file: 'idle.png', query: '?theme=light&brand=gold&locale=en' },
  {
    file: 'requires-action.png',
    query: '?theme=light&brand=gold&locale=en',
    act: (demo) => askForPayment(demo),
  },
  {
    file: 'paid.png',
    query: '?theme=light&brand=gold&locale=en&poll-interval=2000',
    act: async (demo) => {
      await askForPayment(demo);
      await demo.phoneButton('approve').click();
      await demo.waitForState('paid');
      await demo.waitForPhone('paid');
      return true;
    },
  },
  {
    file: 'double-prompt.png',
    query: '?theme=light&brand=gold&locale=en&poll-interval=2000',
    act: payWithSecondNumber,
  },
  {
    file: 'failed.png',
    query: '?theme=light&brand=gold&locale=en&poll-interval=2000',
    act: async (demo) => {
      await askForPayment(demo);
      await demo.phoneButton('decline').click();
      await demo.waitForState('failed');
      await demo.waitForPhone('failed');
      return true;
    },
  },
  {
    file: 'timeout.png',
    query: '?theme=light&brand=gold&locale=en&poll-interval=2000&poll-timeout=3000',
    act: async (demo) => {
      await askForPayment(demo);
      await demo.waitForState('timeout');
      return true;
    },
  },
  {
    file: 'dark.png',
    query: '?theme=dark&brand=indigo&locale=en',
    act: (demo) => askForPayment(demo, 'telecel'),
  },
  {
    file: 'french.png',
    query: '?theme=light&brand=gold&locale=fr',
    act: (demo) => askForPayment(demo, 'at'),
  },
  {
    file: 'phone-screen.png',
    query: '?theme=light&brand=gold&locale=en',
    phone: true,
    scrollTo: '#shop',
    act: (demo) => askForPayment(demo),
  },
  {
    file: 'full-page.png',
    query: '?theme=light&brand=gold&locale=en',
    fullPage: true,
    act: (demo) => askForPayment(demo),
  },
];

async function take(browser: Browser, baseUrl: string, shot: Shot): Promise<void> {
  const context = await newDemoContext(browser, { phone: shot.phone ?? false });
  try {
    const page: Page = await context.newPage();
    if (!shot.phone) await page.setViewportSize({ width: 1280, height: 1000 });
    const demo = new DemoPage(page);
    await demo.open(baseUrl, shot.query);
    if ((await shot.act?.(demo)) === false) {
      console.log(`docs/screenshots/${shot.file}: skipped, this element has no such screen yet`);
      return;
    }
    // Let the phone's entrance animation end and the element settle its focus.
    await page.waitForTimeout(400);
    if (shot.scrollTo) {
      await page.locator(shot.scrollTo).evaluate((node) => node.scrollIntoView({ block: 'start' }));
    } else {
      await page.evaluate(() => window.scrollTo(0, 0));
    }
    await page.screenshot({ path: `${OUTPUT}${shot.file}`, fullPage: shot.fullPage ?? false });
    console.log(`docs/screenshots/${shot.file}`);
  } finally {
    await context.close();
  }
}

mkdirSync(OUTPUT, { recursive: true });
// Every shot prompts the same number, far more often than the relay's 3 in 10 minutes allow a shopper.
const server = await startDemoServer({
  port: 0,
  sandboxApproveAfterMs: DEFAULT_SANDBOX_APPROVE_MS,
  rateLimit: false,
});
const browser = await launchChromium();
try {
  for (const shot of SHOTS) await take(browser, server.url, shot);
} finally {
  await browser.close();
  await server.close();
}
