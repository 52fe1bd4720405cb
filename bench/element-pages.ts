/**
 * The pages the element benchmark loads and how it loads them: the plain
 * form, the element and both on one page (and the baseline's bare page),
 * served gzipped from a child process; one load in a fresh browser context on
 * a desktop, a CPU slowed down, or Lighthouse's mobile profile; and the
 * medians and ratios of the marks the pages record.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { embedBundleCode } from '../test/fixtures/embed-bundle.js';
import { loadBaseline } from './baseline.js';
import type { StartedServer } from './lib.js';

/** The marks a page records, ms since navigation start; a page without a form lacks its marks. */
export interface Marks {
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

/** The element's part of a page, its embed loaded from `embedPath`. */
function elementPart(embedPath: string): string {
  return `<script src="${embedPath}"></script>
<pay-checkout create-url="/api/checkout/orders" lookup-url="/api/checkout/lookup" amount="5000"></pay-checkout>
<script>
  document.querySelector('pay-checkout').updateComplete.then(() => {
    __markFrame('elementRendered');
    __markIdle('elementInteractive');
  });
</script>`;
}

/** A page with the plain form, the element, or both (the plain form first). */
function pageHtml(parts: { plain: boolean; element: boolean; embedPath?: string }): string {
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
${parts.element ? elementPart(parts.embedPath ?? '/pay-checkout.embed.js') : ''}
</body></html>`;
}

/** The pages served: both forms on one page, and each on its own; the baseline's bare page beside them. */
export const PAGES: Record<string, string> = {
  '/same-page': pageHtml({ plain: true, element: true }),
  '/plain-only': pageHtml({ plain: true, element: false }),
  '/element-only': pageHtml({ plain: false, element: true }),
  '/baseline/element-only': pageHtml({
    plain: false,
    element: true,
    embedPath: '/baseline/pay-checkout.embed.js',
  }),
};

/** What the page server answers at one path: its type, and its bytes plain and gzipped (level 9). */
interface Served {
  type: string;
  plain: Buffer;
  gzip: Buffer;
}

function served(type: string, text: string): Served {
  const plain = Buffer.from(text);
  return { type, plain, gzip: gzipSync(plain, { level: 9 }) };
}

/** Child-process starter: serves the pages and the embed (and the baseline's embed), gzipped when asked. */
export async function servePage(): Promise<StartedServer<{ embedBytes: number; embedGzipBytes: number }>> {
  const files = new Map<string, Served>();
  for (const [path, page] of Object.entries(PAGES)) files.set(path, served('text/html; charset=utf-8', page));
  const embed = served('text/javascript; charset=utf-8', await embedBundleCode());
  files.set('/pay-checkout.embed.js', embed);
  const baseline = await loadBaseline();
  if (baseline) files.set('/baseline/pay-checkout.embed.js', served(embed.type, await baseline.embedCode()));
  const server = createServer((request, response) => {
    const file = files.get((request.url ?? '/').split('?')[0] ?? '/');
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    response.writeHead(200, {
      'content-type': file.type,
      'cache-control': 'no-store',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    response.end(gzip ? file.gzip : file.plain);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    info: { embedBytes: embed.plain.byteLength, embedGzipBytes: embed.gzip.byteLength },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Lighthouse 12's mobile settings as DevTools throttling applies them: Slow 4G
 * (150 ms round trips, 1.6 Mbit/s down, 750 kbit/s up, each adjusted by
 * Lighthouse's DevTools factors 3.75 and 0.9), the CPU slowed 4×, and a Moto G
 * Power's screen.
 */
export const MOBILE_PROFILE = {
  context: { viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true },
  network: {
    offline: false,
    latency: 150 * 3.75,
    downloadThroughput: (1.6 * 1024 * 0.9 * 1024) / 8,
    uploadThroughput: (750 * 0.9 * 1024) / 8,
  },
  cpuSlowdown: 4,
} as const;

/** How a load is made: the CPU's slowdown, and the mobile profile's screen and network or a desktop's. */
export interface LoadProfile {
  cpuSlowdown: number;
  mobile?: boolean;
}

export async function loadOnce(browser: Browser, url: string, profile: LoadProfile): Promise<Marks> {
  const options: BrowserContextOptions = profile.mobile
    ? MOBILE_PROFILE.context
    : { viewport: { width: 1280, height: 900 } };
  const context = await browser.newContext(options);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    if (profile.mobile) {
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', MOBILE_PROFILE.network);
    }
    if (profile.cpuSlowdown > 1) {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown });
    }
    await page.goto(url);
    // The paint observer may hear of the first paint after the marks are set, on a busy machine: wait for it too.
    const needed = url.endsWith('/plain-only')
      ? ['plainInteractive', 'firstContentfulPaint']
      : url.endsWith('/element-only')
        ? ['elementInteractive', 'firstContentfulPaint']
        : ['plainInteractive', 'elementInteractive', 'firstContentfulPaint'];
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

export function summary(values: number[]) {
  return { medianMs: percentile(values, 0.5), p90Ms: percentile(values, 0.9) };
}

/** The median over loads of element ÷ plain, each pair measured together (one page, or two pages in a row). */
export function pairedRatio(pairs: [number, number][]): number {
  return percentile(
    pairs.map(([element, plain]) => element / Math.max(0.1, plain)),
    0.5,
  );
}

export const mark = (marks: Marks, name: keyof Marks): number => {
  const value = marks[name];
  if (value === undefined) throw new Error(`The page did not record ${name}.`);
  return value;
};
