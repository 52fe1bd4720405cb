/**
 * axe on every state of the demo page, element included (axe reads open
 * shadow roots): no serious or critical violation in idle, requires_action
 * with the phone's prompt, paid, failed, timeout, the dark theme, French, and
 * on a phone-sized screen; each state again in English and French at 320 px
 * and in French at 1280 px, the whole page in the checkout's language.
 * Keyboard: the whole payment can be made without a mouse, and answering the
 * phone by keyboard never drops focus to the page's body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { PHONE_STRINGS } from '../../demo/page/phone-strings.js';
import { type RunningDemoServer, startDemoServer } from '../../demo/server/start-demo-server.js';
import { SHOPPER } from '../fixtures/checkout-data.js';
import { launchChromium, newDemoContext } from './helpers/browser.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { DemoPage } from './helpers/demo-page.js';

let browser: Browser;
let server: RunningDemoServer;

before(async () => {
  browser = await launchChromium();
  // The payer never answers on their own here: each test decides the outcome.
  server = await startDemoServer({
    pageRoot: E2E_PAGE_ROOT,
    port: 0,
    sandboxApproveAfterMs: 600_000,
  });
});

after(async () => {
  await browser.close();
  await server.close();
});

async function openDemo(
  t: TestContext,
  query: string,
  options: { phone?: boolean; width?: number } = {},
): Promise<DemoPage> {
  const context = await newDemoContext(browser, options);
  t.after(() => context.close());
  const demo = new DemoPage(await context.newPage());
  await demo.open(server.url, query);
  return demo;
}

/** Runs axe and fails with a readable list of every serious or critical violation. */
async function assertNoSeriousViolations(demo: DemoPage, what: string): Promise<void> {
  // Entrance animations end first, so colour contrast is measured on final colours (spinners never end).
  await demo.page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  const results = await new AxeBuilder({ page: demo.page }).analyze();
  const serious = results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  const report = serious
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}\n` +
        violation.nodes.map((node) => `    ${node.target.join(' ')}: ${node.failureSummary}`).join('\n'),
    )
    .join('\n');
  assert.equal(serious.length, 0, `${what}:\n${report}`);
  assert.ok(results.passes.length > 0, 'axe ran its checks');
}

/** The sandbox's payer declines `orderId` now, for want of funds, through its control surface. */
async function declineForWantOfFunds(orderId: string): Promise<void> {
  const response = await fetch(`${server.url}/sandbox/_sandbox/payments/decline`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: orderId, reason: 'insufficient_funds' }),
  });
  assert.equal(response.status, 200, await response.text());
}

/** The `orderId` of the newest `pay-created` in the page's log. */
async function newestOrderId(demo: DemoPage): Promise<string> {
  const details = await demo.page
    .locator('#event-log > li[data-event="pay-created"] .event-log__detail')
    .allTextContents();
  const orderId = (JSON.parse(details.at(-1) ?? '{}') as { orderId?: string }).orderId;
  assert.ok(orderId, 'a pay-created event with an orderId');
  return orderId;
}

describe('accessibility of the demo page (axe)', () => {
  it('idle, light theme', async (t) => {
    const demo = await openDemo(t, '?theme=light');
    await assertNoSeriousViolations(demo, 'idle');
  });

  it('idle on a phone-sized screen, dark theme, indigo brand', async (t) => {
    const demo = await openDemo(t, '?theme=dark&brand=indigo', { phone: true });
    await assertNoSeriousViolations(demo, 'phone, dark');
    const overflow = await demo.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px on a phone`);
  });

  for (const width of [360, 320]) {
    it(`fits a ${width} px screen without sideways scrolling, the test numbers still a table`, async (t) => {
      const demo = await openDemo(t, '?theme=light', { phone: true, width });
      const scrollWidth = await demo.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
      // Stacked for the phone, the rows and cells are still a table's to assistive technology.
      const numbers = demo.page.getByRole('table', { name: /test number/ });
      assert.equal(await numbers.getByRole('row').count(), 6, 'the heading row and five numbers');
      assert.equal(await numbers.getByRole('columnheader').count(), 3);
      await numbers.getByRole('cell', { name: '024 400 0002' }).waitFor();
      await assertNoSeriousViolations(demo, `${width} px`);
    });
  }

  it('requires_action, with the prompt on the phone', async (t) => {
    const demo = await openDemo(t, '?theme=light');
    await demo.pay(SHOPPER);
    await demo.waitForState('requires_action');
    await demo.waitForPhone('prompt');
    await assertNoSeriousViolations(demo, 'requires_action');
  });

  it('paid, in French and dark', async (t) => {
    const demo = await openDemo(t, '?theme=dark&locale=fr&poll-interval=2000');
    await demo.pay(SHOPPER);
    await demo.waitForPhone('prompt');
    await demo.phoneButton('approve').click();
    await demo.waitForState('paid');
    await assertNoSeriousViolations(demo, 'paid (fr, dark)');
  });

  it('failed', async (t) => {
    const demo = await openDemo(t, '?theme=light&brand=indigo&poll-interval=2000');
    await demo.pay({ name: 'Kofi Boateng', number: '0244000003' });
    await demo.waitForPhone('prompt');
    await demo.phoneButton('decline').click();
    await demo.waitForState('failed');
    await assertNoSeriousViolations(demo, 'failed');
  });

  it('timeout', async (t) => {
    const demo = await openDemo(t, '?theme=light&poll-interval=2000&poll-timeout=3000');
    await demo.pay({ name: 'Yaw Asante', number: '0244000003' });
    await demo.waitForState('timeout');
    await assertNoSeriousViolations(demo, 'timeout');
  });

  const screens: [width: number, locale: 'en' | 'fr', numbers: [string, string]][] = [
    [320, 'en', ['0245550301', '0245550302']],
    [320, 'fr', ['0245550303', '0245550304']],
    [1280, 'fr', ['0245550305', '0245550306']],
  ];
  for (const [width, locale, [firstNumber, secondNumber]] of screens) {
    it(`every state at ${width} px in ${locale}: form, waiting, an empty wallet, the receipt`, async (t) => {
      const demo = await openDemo(t, `?theme=light&locale=${locale}&poll-interval=2000`, {
        phone: width < 600,
        width,
      });
      const what = `${width} px, ${locale}`;
      await assertNoSeriousViolations(demo, `idle (${what})`);
      await demo.pay({ name: 'Akosua Frimpong', number: firstNumber });
      await demo.waitForState('requires_action');
      await demo.waitForPhone('prompt');
      await assertNoSeriousViolations(demo, `requires_action (${what})`);
      await declineForWantOfFunds(await newestOrderId(demo));
      await demo.waitForState('failed');
      await demo.waitForPhone('failed');
      // The phone says what happened, in the checkout's language.
      const phoneText = (await demo.phone().textContent()) ?? '';
      assert.match(phoneText, new RegExp(PHONE_STRINGS[locale].failed.insufficient_funds.title));
      await assertNoSeriousViolations(demo, `failed (${what})`);
      await demo.elementButton(locale === 'fr' ? 'Réessayer' : 'Try again').click();
      await demo.waitForState('idle');
      await demo.pay({ name: 'Akosua Frimpong', number: secondNumber });
      await demo.waitForPhone('prompt');
      await demo.phoneButton('approve').click();
      await demo.waitForState('paid');
      await assertNoSeriousViolations(demo, `paid (${what})`);
      const overflow = await demo.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px (${what})`);
    });
  }

  it('timeout at 320 px in French', async (t) => {
    const demo = await openDemo(t, '?theme=dark&locale=fr&poll-interval=2000&poll-timeout=3000', {
      phone: true,
      width: 320,
    });
    await demo.pay({ name: 'Kwame Mensah', number: '0245550307' });
    await demo.waitForState('timeout');
    await assertNoSeriousViolations(demo, 'timeout (320 px, fr)');
  });

  it('keeps focus on the phone when its Decline is pressed by keyboard', async (t) => {
    const demo = await openDemo(t, '?poll-interval=2000');
    await demo.pay({ name: 'Esi Owusu', number: '0245550308' });
    await demo.waitForPhone('prompt');
    await demo.phoneButton('decline').focus();
    await demo.page.keyboard.press('Enter');
    await demo.waitForPhone('failed');
    await demo.waitForState('failed');
    // The element's pay-failed redraws the phone too: focus stays with it, on its status heading.
    await demo.page.locator('#event-log > li[data-event="pay-failed"]').waitFor();
    const focused = await demo.page.evaluate(() => {
      const active = document.activeElement;
      return {
        onPhone: Boolean(active?.closest('#phone-screen')),
        tag: active?.tagName,
        text: active?.textContent,
      };
    });
    assert.deepEqual(focused, { onPhone: true, tag: 'H3', text: PHONE_STRINGS.en.failed.declined.title });
  });

  it('can be paid with the keyboard alone, from the skip link to the phone’s Approve', async (t) => {
    const demo = await openDemo(t, '?poll-interval=2000');
    const page = demo.page;
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip-link');
    await page.keyboard.press('Enter');
    // From the shop: Tab to the quantity, then into the element's fields.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'quantity');
    await page.keyboard.press('Tab');
    await page.keyboard.type(SHOPPER.name);
    await page.keyboard.press('Tab');
    await page.keyboard.type(SHOPPER.number);
    await page.keyboard.press('Enter');
    await demo.waitForPhone('prompt');
    await demo.phoneButton('approve').focus();
    await page.keyboard.press('Enter');
    await demo.waitForState('paid');
  });
});
