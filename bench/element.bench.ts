/**
 * What `<pay-checkout>` costs a page to show (issue #7): its time to first
 * render and to interactive in Chromium, against a plain HTML form with the
 * same fields on the same page load (target: at most 2× the plain form).
 *
 * One page holds both: the plain form first, then the embed script (a
 * classic `<script src>`, as the README's snippet has it), then the element.
 * Each marks, from navigation start (`performance.now()`):
 * - first render: the end of the first frame after it is in the DOM (the
 *   element: after its first update) — `requestAnimationFrame`, then a task;
 * - interactive: the first idle moment after that frame, its handlers
 *   attached — `requestIdleCallback`: a keystroke would be handled at once.
 * Every load is a fresh browser context (cold cache), on a desktop CPU and
 * with the CPU slowed 4× (a mid-range phone). The page server runs in a
 * child process. Writes bench/results/element.json.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { embedBundleCode } from '../test/fixtures/embed-bundle.js';
import { isMainModule, type StartedServer, startServerInChild, writeResults } from './lib.js';

const LOADS = Number(process.env.ELEMENT_BENCH_LOADS ?? 20);
const TARGET_RATIO = 2;
const SCENARIOS = [
  { name: 'desktop', cpuSlowdown: 1 },
  { name: 'phoneCpu4x', cpuSlowdown: 4 },
] as const;

/** The marks a page records, ms since navigation start; a page without a form lacks its marks. */
interface Marks {
  plainRendered?: number;
  plainInteractive?: number;
  elementRendered?: number;
  elementInteractive?: number;
  firstContentfulPaint?: number;
}

const PLAIN_FORM = `<form class="plain" id="plain" novalidate aria-labelledby="plain-title">
  <h2 id="plain-title">Pay with mobile money</h2>
  <p>Total GH₵ 50.00</p>
  <label for="p-name">Your name</label>
  <input id="p-name" name="customer_name" required autocomplete="name">
  <label for="p-number">Mobile money number</label>
  <input id="p-number" name="number" type="tel" inputmode="tel" autocomplete="tel" required>
  <label for="p-issuer">Network</label>
  <select id="p-issuer" name="issuer" required>
    <option value="">Choose your network</option><option value="mtn">MTN</option>
    <option value="telecel">Telecel</option><option value="at">AT</option>
  </select>
  <button type="submit">Pay GH₵ 50.00</button>
</form>
<script>
  document.getElementById('plain').addEventListener('submit', (event) => event.preventDefault());
  __markFrame('plainRendered');
  __markIdle('plainInteractive');
</script>`;

const ELEMENT = `<script src="/pay-checkout.embed.js"></script>
<pay-checkout create-url="/api/checkout/orders" lookup-url="/api/checkout/lookup" amount="5000"></pay-checkout>
<script>
  document.querySelector('pay-checkout').updateComplete.then(() => {
    __markFrame('elementRendered');
    __markIdle('elementInteractive');
  });
</script>`;

/** A page with the plain form, the element, or both (the plain form first). */
function pageHtml(parts: { plain: boolean; element: boolean }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout: element against a plain form</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 1rem; }
  .plain { display: grid; gap: .5rem; max-width: 28rem; margin-bottom: 2rem; }
  .plain input, .plain select, .plain button { font-size: 1rem; min-height: 44px; }
</style>
<script>
  window.__marks = {};
  window.__markFrame = (name) => requestAnimationFrame(() => setTimeout(() => { __marks[name] = performance.now(); }, 0));
  window.__markIdle = (name) => requestAnimationFrame(() => requestIdleCallback(() => { __marks[name] = performance.now(); }));
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') __marks.firstContentfulPaint = entry.startTime;
  }).observe({ type: 'paint', buffered: true });
</script>
</head><body>
${parts.plain ? PLAIN_FORM : ''}
${parts.element ? ELEMENT : ''}
</body></html>`;
}

/** The pages served: both forms on one page, and each on its own. */
const PAGES: Record<string, string> = {
  '/same-page': pageHtml({ plain: true, element: true }),
  '/plain-only': pageHtml({ plain: true, element: false }),
  '/element-only': pageHtml({ plain: false, element: true }),
};

/** Child-process starter: serves the page and the embed bundle. */
export async function servePage(): Promise<StartedServer<{ embedBytes: number }>> {
  const embed = await embedBundleCode();
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const page = PAGES[path];
    if (page !== undefined || path === '/pay-checkout.embed.js') {
      response.writeHead(200, {
        'content-type': page !== undefined ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8',
        'cache-control': 'no-store',
      });
      response.end(page ?? embed);
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    info: { embedBytes: Buffer.byteLength(embed) },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function loadOnce(browser: Browser, url: string, cpuSlowdown: number): Promise<Marks> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    if (cpuSlowdown > 1) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
    }
    await page.goto(url);
    const needed = url.endsWith('/plain-only')
      ? ['plainInteractive']
      : url.endsWith('/element-only')
        ? ['elementInteractive']
        : ['plainInteractive', 'elementInteractive'];
    await page.waitForFunction(
      (names) => {
        const marks = (window as unknown as { __marks: Record<string, number> }).__marks;
        return names.every((name) => marks[name] !== undefined);
      },
      needed,
      { timeout: 60_000 },
    );
    return await page.evaluate(() => (window as unknown as { __marks: Marks }).__marks);
  } finally {
    await context.close();
  }
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
  return Math.round(value * 100) / 100;
}

function summary(values: number[]) {
  return { medianMs: percentile(values, 0.5), p90Ms: percentile(values, 0.9) };
}

/** The median over loads of element ÷ plain, each pair measured together (one page, or two pages in a row). */
function pairedRatio(pairs: [number, number][]): number {
  return percentile(
    pairs.map(([element, plain]) => element / Math.max(0.1, plain)),
    0.5,
  );
}

const mark = (marks: Marks, name: keyof Marks): number => {
  const value = marks[name];
  if (value === undefined) throw new Error(`The page did not record ${name}.`);
  return value;
};

async function main(): Promise<void> {
  const server = await startServerInChild<{ embedBytes: number }>(new URL(import.meta.url), 'servePage');
  const browser = await chromium.launch({
    executablePath: findChromium(),
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const results: Record<string, unknown> = {};
  try {
    // One unmeasured load of each page: the browser's own start-up costs are not the page's.
    for (const path of Object.keys(PAGES)) await loadOnce(browser, `${server.url}${path}`, 1);
    for (const scenario of SCENARIOS) {
      const same: Marks[] = [];
      const plainOnly: Marks[] = [];
      const elementOnly: Marks[] = [];
      // Interleaved, so a busy moment on a shared machine weighs on all three alike.
      for (let index = 0; index < LOADS; index++) {
        same.push(await loadOnce(browser, `${server.url}/same-page`, scenario.cpuSlowdown));
        plainOnly.push(await loadOnce(browser, `${server.url}/plain-only`, scenario.cpuSlowdown));
        elementOnly.push(await loadOnce(browser, `${server.url}/element-only`, scenario.cpuSlowdown));
      }
      const of = (loads: Marks[], name: keyof Marks) => loads.map((marks) => mark(marks, name));
      const samePage = {
        plainForm: {
          firstRender: summary(of(same, 'plainRendered')),
          interactive: summary(of(same, 'plainInteractive')),
        },
        element: {
          firstRender: summary(of(same, 'elementRendered')),
          interactive: summary(of(same, 'elementInteractive')),
        },
        firstContentfulPaint: summary(of(same, 'firstContentfulPaint')),
        elementVersusPlain: {
          firstRender: pairedRatio(
            same.map((marks) => [mark(marks, 'elementRendered'), mark(marks, 'plainRendered')]),
          ),
          interactive: pairedRatio(
            same.map((marks) => [mark(marks, 'elementInteractive'), mark(marks, 'plainInteractive')]),
          ),
        },
      };
      const pagesOfTheirOwn = {
        plainForm: {
          firstRender: summary(of(plainOnly, 'plainRendered')),
          interactive: summary(of(plainOnly, 'plainInteractive')),
        },
        element: {
          firstRender: summary(of(elementOnly, 'elementRendered')),
          interactive: summary(of(elementOnly, 'elementInteractive')),
        },
        elementVersusPlain: {
          firstRender: pairedRatio(
            elementOnly.map((marks, index) => [
              mark(marks, 'elementRendered'),
              mark(plainOnly[index] as Marks, 'plainRendered'),
            ]),
          ),
          interactive: pairedRatio(
            elementOnly.map((marks, index) => [
              mark(marks, 'elementInteractive'),
              mark(plainOnly[index] as Marks, 'plainInteractive'),
            ]),
          ),
        },
      };
      const worst = Math.max(
        samePage.elementVersusPlain.firstRender,
        samePage.elementVersusPlain.interactive,
        pagesOfTheirOwn.elementVersusPlain.firstRender,
        pagesOfTheirOwn.elementVersusPlain.interactive,
      );
      results[scenario.name] = {
        cpuSlowdown: scenario.cpuSlowdown,
        loads: LOADS,
        samePage,
        pagesOfTheirOwn,
        target: { elementVersusPlainAtMost: TARGET_RATIO, worstRatio: worst, met: worst <= TARGET_RATIO },
      };
      const line = (name: string, figures: typeof pagesOfTheirOwn) =>
        `${name}: first render ${figures.element.firstRender.medianMs} ms vs plain ${figures.plainForm.firstRender.medianMs} ms (×${figures.elementVersusPlain.firstRender}); interactive ${figures.element.interactive.medianMs} ms vs plain ${figures.plainForm.interactive.medianMs} ms (×${figures.elementVersusPlain.interactive})`;
      process.stdout.write(
        `${scenario.name}\n  ${line('same page', samePage)}\n  ${line('pages of their own', pagesOfTheirOwn)}\n  target ≤ ×${TARGET_RATIO}: ${worst <= TARGET_RATIO ? 'met' : 'NOT met'}\n`,
      );
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const file = await writeResults('element', {
    settings: {
      browser: `Chromium (${findChromium()}), headless, 1280×900, a fresh context (cold cache) per load`,
      pages:
        'samePage: the plain form, then <script src="/pay-checkout.embed.js">, then <pay-checkout>; pagesOfTheirOwn: the plain form alone and the element alone, loaded one after the other. Served from a child process over loopback.',
      firstRender:
        'ms from navigation start to the end of the first frame after the form is in the DOM (element: after its first update)',
      interactive:
        'ms from navigation start to the first idle callback after that frame, its handlers attached',
      ratios:
        'median over loads of element ÷ plain form, measured on the same load (samePage) or on the pair of loads',
      embedBytes: server.info.embedBytes,
    },
    ...results,
  });
  process.stdout.write(`wrote ${file}\n`);
}

if (isMainModule(import.meta.url)) await main();
