/**
 * The demo page holds still and fits the screen. Its cumulative layout shift
 * from load to a usable form, at 412 px, is read with a `layout-shift`
 * observer while the script and the catalogue are held back until what came
 * before them has painted: the order a slow phone sees them in, without
 * waiting on the clock. The form's first field shows without scrolling at
 * 320×640, the Pay button at 320×640 (the demo's switches folded behind one
 * button) and at 1280×800, and the element keeps one height
 * from the form to the receipt.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { type RunningDemoServer, startDemoServer } from '../../demo/server/start-demo-server.js';
import { launchChromium } from './helpers/browser.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { DemoPage } from './helpers/demo-page.js';
import { demoLayoutShift } from './helpers/layout-shift.js';

/** Layout shift at or above this is "needs improvement" (web.dev/cls); the demo stays well under it. */
const LAYOUT_SHIFT_LIMIT = 0.05;

let browser: Browser;
let server: RunningDemoServer;

before(async () => {
  browser = await launchChromium();
  // The payer never answers on their own: the test decides.
  server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, port: 0, sandboxApproveAfterMs: 600_000 });
});

after(async () => {
  await browser.close();
  await server.close();
});

async function newPage(t: TestContext, options: BrowserContextOptions): Promise<Page> {
  const context = await browser.newContext(options);
  t.after(() => context.close());
  return context.newPage();
}

/** Where a control's box is, and whether it lies wholly inside the viewport without scrolling. */
async function inView(
  page: Page,
  selector: string,
): Promise<{ top: number; bottom: number; inside: boolean }> {
  const box = await page.locator(selector).boundingBox();
  assert.ok(box, `${selector} is laid out`);
  const viewport = page.viewportSize();
  assert.ok(viewport);
  const scrolled = await page.evaluate(() => window.scrollY);
  const inside = scrolled === 0 && box.y >= 0 && box.y + box.height <= viewport.height;
  return { top: box.y, bottom: box.y + box.height, inside };
}

describe('layout of the demo page', () => {
  for (const locale of ['en', 'fr'] as const) {
    it(`holds still from load to a usable form at 412 px, in ${locale} (layout shift under ${LAYOUT_SHIFT_LIMIT})`, async (t) => {
      const page = await newPage(t, { viewport: { width: 412, height: 823 } });
      const shift = await demoLayoutShift(page, `${server.url}/?locale=${locale}`);
      t.diagnostic(`layout shift ${shift.toFixed(4)}`);
      assert.ok(
        shift < LAYOUT_SHIFT_LIMIT,
        `the page shifted by ${shift.toFixed(4)} on its way to a usable form`,
      );
    });
  }

  for (const locale of ['en', 'fr'] as const) {
    it(`shows the form's first field without scrolling at 320×640, in ${locale}`, async (t) => {
      const page = await newPage(t, {
        viewport: { width: 320, height: 640 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      const demo = new DemoPage(page);
      await demo.open(server.url, `?locale=${locale}`);
      const field = await inView(page, 'pay-checkout [name="customer_name"]');
      assert.ok(field.inside, `the name field spans ${field.top}–${field.bottom} px of a 640 px screen`);
    });
  }

  for (const locale of ['en', 'fr'] as const) {
    it(`shows the Pay button without scrolling at 320×640, in ${locale}`, async (t) => {
      const page = await newPage(t, {
        viewport: { width: 320, height: 640 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      const demo = new DemoPage(page);
      await demo.open(server.url, `?locale=${locale}`);
      const pay = await inView(page, 'pay-checkout button[type="submit"]');
      assert.ok(pay.inside, `the Pay button spans ${pay.top}–${pay.bottom} px of a 640 px screen`);
      // The switches folded to make that room are one tap away, in the page's language.
      const settings = page.getByRole('button', { name: locale === 'fr' ? 'Réglages' : 'Settings' });
      assert.equal(await settings.getAttribute('aria-expanded'), 'false');
      await settings.click();
      assert.equal(await settings.getAttribute('aria-expanded'), 'true');
      assert.ok(await page.getByRole('radio', { name: locale === 'fr' ? 'Sombre' : 'Dark' }).isVisible());
    });
  }

  it('shows the Pay button without scrolling at 1280×800', async (t) => {
    const page = await newPage(t, { viewport: { width: 1280, height: 800 } });
    const demo = new DemoPage(page);
    await demo.open(server.url);
    const pay = await inView(page, 'pay-checkout button[type="submit"]');
    assert.ok(pay.inside, `the Pay button spans ${pay.top}–${pay.bottom} px of an 800 px screen`);
  });

  it('keeps one height from the form to the waiting screen and the receipt', async (t) => {
    const page = await newPage(t, { viewport: { width: 412, height: 823 } });
    const demo = new DemoPage(page);
    await demo.open(server.url, '?poll-interval=2000');
    const height = () => demo.checkout.evaluate((element) => element.getBoundingClientRect().height);
    const form = await height();
    await demo.pay({ name: 'Ama Mensah', number: '0245550201' });
    await demo.waitForState('requires_action');
    assert.equal(await height(), form, 'the waiting screen');
    await demo.waitForPhone('prompt');
    await demo.phoneButton('approve').click();
    await demo.waitForState('paid');
    assert.equal(await height(), form, 'the receipt');
  });
});
