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
 * child process and sends gzip, as a host would.
 *
 * Then two figures of what a shopper on a phone sees:
 * - time to a usable form on a throttled mobile profile (Lighthouse 12's
 *   mobile settings applied through the DevTools protocol: Slow 4G, CPU 4×,
 *   412×823), for a bare page with only the embed: its interactive mark;
 * - the demo's cumulative layout shift from load to a usable form at 412 px,
 *   read as the end-to-end suite reads it (test/e2e/helpers/layout-shift.ts):
 *   a layout value, not a timing.
 * With `BENCH_BASELINE` naming a copy of an earlier commit (bench/baseline.ts),
 * both are measured on that version's embed and demo too, loads in turns.
 * Writes bench/results/element.json.
 */
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { demoLayoutShift } from '../test/e2e/helpers/layout-shift.js';
import { type Baseline, loadBaseline, startDemoFrom } from './baseline.js';
import { loadOnce, type Marks, MOBILE_PROFILE, mark, pairedRatio, summary } from './element-pages.js';
import { isMainModule, loadAverage, startServerInChild, writeResults } from './lib.js';

const LOADS = Number(process.env.ELEMENT_BENCH_LOADS ?? 20);
const MOBILE_LOADS = Number(process.env.ELEMENT_BENCH_MOBILE_LOADS ?? 10);
/** Loads of the demo per locale for its layout shift. */
const LAYOUT_LOADS = 3;
const TARGET_RATIO = 2;
const SCENARIOS = [
  { name: 'desktop', cpuSlowdown: 1 },
  { name: 'phoneCpu4x', cpuSlowdown: 4 },
] as const;

async function main(): Promise<void> {
  const baseline = await loadBaseline();
  const server = await startServerInChild<{ embedBytes: number; embedGzipBytes: number }>(
    new URL('./element-pages.ts', import.meta.url),
    'servePage',
  );
  const browser = await chromium.launch({
    executablePath: findChromium(),
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const results: Record<string, unknown> = {};
  try {
    // One unmeasured load of each page: the browser's own start-up costs are not the page's.
    for (const path of ['/same-page', '/plain-only', '/element-only']) {
      await loadOnce(browser, `${server.url}${path}`, { cpuSlowdown: 1 });
    }
    for (const scenario of SCENARIOS) {
      const loadBefore = loadAverage();
      const same: Marks[] = [];
      const plainOnly: Marks[] = [];
      const elementOnly: Marks[] = [];
      // Interleaved, so a busy moment on a shared machine weighs on all three alike.
      for (let index = 0; index < LOADS; index++) {
        same.push(await loadOnce(browser, `${server.url}/same-page`, scenario));
        plainOnly.push(await loadOnce(browser, `${server.url}/plain-only`, scenario));
        elementOnly.push(await loadOnce(browser, `${server.url}/element-only`, scenario));
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
        loadAverage: { before: loadBefore, after: loadAverage() },
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
    results.mobileProfile = await measureMobileProfile(browser, server.url, baseline !== undefined);
    results.demoLayoutShift = await measureDemoLayoutShift(browser, baseline);
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
      embedGzipBytes: server.info.embedGzipBytes,
      served: 'gzip (level 9) to a browser that accepts it, as a host would',
      mobileProfile: `the bare page with only the embed, ${MOBILE_LOADS} loads each: Lighthouse 12 mobile settings applied through CDP (latency ${MOBILE_PROFILE.network.latency} ms, ${Math.round((MOBILE_PROFILE.network.downloadThroughput * 8) / 1024)} kbit/s down, CPU ×${MOBILE_PROFILE.cpuSlowdown}, 412×823 at 1.75×); usableForm is the interactive mark`,
      demoLayoutShift: `the demo page at 412×823, en and fr, ${LAYOUT_LOADS} loads each: script and catalogue held until what came before them painted (test/e2e/helpers/layout-shift.ts); a layout value, not a timing`,
      baseline: baseline
        ? `the copy of an earlier commit in ${baseline.folder}`
        : 'none (BENCH_BASELINE unset)',
    },
    ...results,
  });
  process.stdout.write(`wrote ${file}\n`);
}

/** Time to a usable form on the mobile profile, the bare page with only the embed: this version's, and the baseline's in turns. */
async function measureMobileProfile(browser: Browser, serverUrl: string, withBaseline: boolean) {
  const loadBefore = loadAverage();
  const paths: Record<string, string> = {
    current: '/element-only',
    ...(withBaseline ? { baseline: '/baseline/element-only' } : {}),
  };
  const profile = { cpuSlowdown: MOBILE_PROFILE.cpuSlowdown, mobile: true };
  const loads: Record<string, Marks[]> = {};
  for (const [name, path] of Object.entries(paths)) {
    // One unmeasured load each: the throttled browser's own start-up is not the page's.
    await loadOnce(browser, `${serverUrl}${path}`, profile);
    loads[name] = [];
  }
  for (let index = 0; index < MOBILE_LOADS; index++) {
    for (const [name, path] of Object.entries(paths)) {
      loads[name]?.push(await loadOnce(browser, `${serverUrl}${path}`, profile));
    }
  }
  const of = (marks: Marks[], name: keyof Marks) => marks.map((entry) => mark(entry, name));
  const figures = Object.fromEntries(
    Object.entries(loads).map(([name, marks]) => [
      name,
      {
        usableForm: summary(of(marks, 'elementInteractive')),
        firstRender: summary(of(marks, 'elementRendered')),
        firstContentfulPaint: summary(of(marks, 'firstContentfulPaint')),
      },
    ]),
  );
  for (const [name, figure] of Object.entries(figures)) {
    process.stdout.write(`mobile profile, ${name}: usable form ${figure.usableForm.medianMs} ms (median)\n`);
  }
  const { current = [], baseline = [] } = loads;
  // Each load of this version beside the baseline's load just after it, as the desktop pairs are read.
  const currentVersusBaseline = withBaseline
    ? pairedRatio(
        current.map((marks, index) => [
          mark(marks, 'elementInteractive'),
          mark(baseline[index] as Marks, 'elementInteractive'),
        ]),
      )
    : undefined;
  return {
    loadAverage: { before: loadBefore, after: loadAverage() },
    loads: MOBILE_LOADS,
    ...figures,
    ...(currentVersusBaseline === undefined
      ? {}
      : { usableFormCurrentVersusBaseline: currentVersusBaseline }),
  };
}

/** The demo's layout shift from load to a usable form at 412 px, en and fr: this version's demo, and the baseline's. */
async function measureDemoLayoutShift(browser: Browser, baseline: Baseline | undefined) {
  const demos = {
    current: await startDemoFrom(fileURLToPath(new URL('../', import.meta.url))),
    ...(baseline ? { baseline: await baseline.startDemo() } : {}),
  };
  const figures: Record<string, Record<string, { median: number; max: number; loads: number[] }>> = {};
  try {
    for (const [name, demo] of Object.entries(demos)) {
      figures[name] = {};
      for (const locale of ['en', 'fr']) {
        const shifts: number[] = [];
        for (let index = 0; index < LAYOUT_LOADS; index++) {
          const context = await browser.newContext({ viewport: { width: 412, height: 823 } });
          try {
            const shift = await demoLayoutShift(await context.newPage(), `${demo.url}/?locale=${locale}`);
            shifts.push(Math.round(shift * 10_000) / 10_000);
          } finally {
            await context.close();
          }
        }
        const sorted = [...shifts].sort((a, b) => a - b);
        const figure = {
          median: sorted[Math.floor(sorted.length / 2)] ?? 0,
          max: sorted.at(-1) ?? 0,
          loads: shifts,
        };
        (figures[name] as Record<string, typeof figure>)[locale] = figure;
        process.stdout.write(`demo layout shift, ${name}, ${locale}: ${figure.median} (max ${figure.max})\n`);
      }
    }
  } finally {
    for (const demo of Object.values(demos)) await demo.close();
  }
  return figures;
}

if (isMainModule(import.meta.url)) await main();
