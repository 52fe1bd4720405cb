/**
 * 1,000 mount/unmount cycles of `<pay-checkout>` in Chromium leave nothing
 * behind (issue #7): no timer, no listener on `window` or `document`, no DOM
 * node or JS listener kept alive. The page counts live timers and listeners
 * by wrapping `setTimeout`/`clearTimeout`, `setInterval`/`clearInterval` and
 * `addEventListener`/`removeEventListener` before the element loads; the DOM
 * counts come from the Chrome DevTools Protocol after a forced garbage
 * collection. Cycles mount an idle form, type into it, follow a pending
 * order (polling and countdown running), and unmount in the middle of a
 * create. The assertions compare counts with the baseline, never timings.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Browser, type CDPSession, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs';
import { SANDBOX_TEST_NUMBERS } from '../../src/sandbox/index.js';
import { createLookupTokens } from '../../src/server/index.js';
import { creationInputFor } from '../fixtures/checkout-data.js';
import { CHECKOUT_URLS, type CheckoutStack, startCheckoutStack } from '../fixtures/checkout-stack.js';
import { LOOKUP_SECRET } from '../fixtures/relay.js';

const CYCLES = 1000;
const BATCH = 100;
const WARM_UP_CYCLES = 20;
/**
 * Room for the garbage collector's own variance between two forced
 * collections: well under what one retained element holds (about 85 nodes,
 * 3 JS listeners and 2 detached roots, measured by keeping one on purpose).
 */
const NODE_SLACK = 40;
const LISTENER_SLACK = 2;
const DETACHED_SLACK = 1;

/** What the page's instrumentation reports. */
interface LiveCounts {
  timers: number;
  intervals: number;
  globalListeners: number;
  /** `target type capture` of each listener on window, document, html or body. */
  globalListenerKeys: string[];
  fetchesDone: number;
}

/** What the DevTools Protocol reports after a garbage collection. */
interface DomCounts {
  nodes: number;
  jsEventListeners: number;
  documents: number;
  detachedNodes: number;
}

/**
 * Runs in the page before any of its scripts: counts live timers and the
 * listeners on global targets, and defines the cycles. Plain JavaScript text:
 * a TypeScript function would reach the page with the transpiler's helpers.
 */
const PAGE_INSTRUMENTS = `(() => {
  const timers = new Set();
  const intervals = new Set();
  const listeners = new Map();
  let fetchesDone = 0;
  const realSetTimeout = window.setTimeout.bind(window);
  const realClearTimeout = window.clearTimeout.bind(window);
  const realSetInterval = window.setInterval.bind(window);
  const realClearInterval = window.clearInterval.bind(window);
  const realAdd = EventTarget.prototype.addEventListener;
  const realRemove = EventTarget.prototype.removeEventListener;
  const realFetch = window.fetch.bind(window);

  window.setTimeout = function (handler, ms, ...args) {
    const id = realSetTimeout((...called) => {
      timers.delete(id);
      if (typeof handler === 'function') handler(...called);
    }, ms, ...args);
    timers.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    timers.delete(id);
    realClearTimeout(id);
  };
  window.setInterval = function (handler, ms, ...args) {
    const id = realSetInterval(handler, ms, ...args);
    intervals.add(id);
    return id;
  };
  window.clearInterval = function (id) {
    intervals.delete(id);
    realClearInterval(id);
  };

  function globalName(target) {
    if (target === window) return 'window';
    if (target === document) return 'document';
    if (target === document.documentElement) return 'html';
    if (document.body && target === document.body) return 'body';
    return undefined;
  }
  function keyOf(target, type, options) {
    const name = globalName(target);
    const capture = typeof options === 'boolean' ? options : Boolean(options && options.capture);
    return name === undefined ? undefined : name + ' ' + type + ' ' + capture;
  }
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    const key = listener ? keyOf(this, type, options) : undefined;
    if (key !== undefined) {
      const set = listeners.get(key) || new Set();
      set.add(listener);
      listeners.set(key, set);
    }
    return realAdd.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function (type, listener, options) {
    const key = keyOf(this, type, options);
    if (key !== undefined && listeners.has(key)) listeners.get(key).delete(listener);
    return realRemove.call(this, type, listener, options);
  };
  window.fetch = function (...args) {
    return realFetch(...args).finally(() => { fetchesDone++; });
  };

  function counts() {
    const keys = [];
    for (const [key, set] of listeners) for (let n = 0; n < set.size; n++) keys.push(key);
    return {
      timers: timers.size,
      intervals: intervals.size,
      globalListeners: keys.length,
      globalListenerKeys: keys.sort(),
      fetchesDone,
    };
  }

  function type(element, name, value) {
    const control = element.shadowRoot.querySelector('[name="' + name + '"]');
    control.value = value;
    control.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    control.dispatchEvent(new FocusEvent('blur'));
  }

  async function runCycles(first, count, urls, order) {
    const main = document.querySelector('main');
    for (let cycle = first; cycle < first + count; cycle++) {
      const element = document.createElement('pay-checkout');
      element.setAttribute('create-url', urls.create);
      element.setAttribute('lookup-url', urls.lookup);
      element.setAttribute('amount', '5000');
      element.setAttribute('persist', 'none');
      element.setAttribute('poll-interval', '2000');
      main.append(element);
      await element.updateComplete;
      switch (cycle % 4) {
        case 0:
          // The form, typed into: field listeners, validation, network detection.
          type(element, 'customer_name', 'Ama Mensah');
          type(element, 'number', '024 123 4567');
          await element.updateComplete;
          break;
        case 1:
          // Following a pending order, unmounted with its first lookup in flight.
          element.resume(order);
          await element.updateComplete;
          break;
        case 2: {
          // Following a pending order until its first lookup answered: the next poll and the countdown are timers.
          const done = fetchesDone;
          element.resume(order);
          const deadline = Date.now() + 5000;
          while (fetchesDone === done && Date.now() < deadline) {
            await new Promise((resolve) => requestAnimationFrame(resolve));
          }
          await element.updateComplete;
          break;
        }
        case 3:
          // Unmounted in the middle of a create: its request, time-out and retries must go with it.
          type(element, 'customer_name', 'Ama Mensah');
          type(element, 'number', '0241234567');
          await element.updateComplete;
          element.submit();
          await element.updateComplete;
          break;
      }
      element.remove();
    }
  }

  window.__lifecycle = { counts, runCycles };
})();`;

type Lifecycle = {
  counts(): LiveCounts;
  runCycles(first: number, count: number, urls: typeof CHECKOUT_URLS, order: PendingOrder): Promise<void>;
};
type LifecycleWindow = Window & { __lifecycle: Lifecycle };

/** An order whose payer never answers, and the token to look it up. */
interface PendingOrder {
  orderId: string;
  lookupToken: string;
}

/** Runs `count` mount/unmount cycles in the page, from cycle number `first`. */
function runCycles(page: Page, first: number, count: number, order: PendingOrder): Promise<void> {
  return page.evaluate(
    (args) =>
      (window as unknown as LifecycleWindow).__lifecycle.runCycles(
        args.first,
        args.count,
        args.urls,
        args.order,
      ),
    { first, count, urls: CHECKOUT_URLS, order },
  );
}

/** The page's live counts. */
function liveCounts(page: Page): Promise<LiveCounts> {
  return page.evaluate(() => (window as unknown as LifecycleWindow).__lifecycle.counts());
}

/** Waits until the page's live timers and listeners are back to `baseline` (work in flight winds down). */
async function settle(page: Page, baseline: LiveCounts): Promise<LiveCounts> {
  try {
    await page.waitForFunction(
      ({ timers, intervals, globalListeners }) => {
        const counts = (window as unknown as LifecycleWindow).__lifecycle.counts();
        return (
          counts.timers === timers &&
          counts.intervals === intervals &&
          counts.globalListeners === globalListeners
        );
      },
      baseline,
      { timeout: 30_000, polling: 100 },
    );
  } catch {
    // Fall through: the assertion below shows what stayed.
  }
  return liveCounts(page);
}

/** DOM counters after a full garbage collection. */
async function domCounts(cdp: CDPSession): Promise<DomCounts> {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const counters = await cdp.send('Memory.getDOMCounters');
  const { detachedNodes } = await cdp.send('DOM.getDetachedDomNodes');
  return { ...counters, detachedNodes: detachedNodes.length };
}

let browser: Browser;
let stack: CheckoutStack;

before(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
  // Hundreds of creates and lookups from one page: the limits are the relay tests' to check.
  stack = await startCheckoutStack({ mountElement: false, rateLimit: false, approveAfterMs: 3_600_000 });
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

describe('<pay-checkout> mounted and unmounted 1,000 times', () => {
  it('leaves no timer, no global listener and no DOM node or JS listener growing', async (t) => {
    const context = await browser.newContext();
    t.after(() => context.close());
    await context.addInitScript(PAGE_INSTRUMENTS);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(stack.pageUrl);
    await page.waitForFunction(() => customElements.get('pay-checkout') !== undefined);
    const cdp = await context.newCDPSession(page);
    await cdp.send('DOM.enable');

    // The payer of this order never answers: it stays pending, so following it polls.
    const [orderId] = stack.sandbox.seedOrders(1, creationInputFor(SANDBOX_TEST_NUMBERS.neverAnswers));
    assert.ok(orderId);
    const order = { orderId, lookupToken: await createLookupTokens(LOOKUP_SECRET).sign(orderId) };

    // Warm-up: the first elements pay for the templates, styles and compiled code every later one shares.
    // The page's own listeners, before any element: what every settled state must come back to.
    const baselineLive = await liveCounts(page);
    await runCycles(page, 0, WARM_UP_CYCLES, order);
    const warmedUp = await settle(page, baselineLive);
    assert.deepEqual(warmedUp.globalListenerKeys, baselineLive.globalListenerKeys);
    assert.equal(warmedUp.timers, baselineLive.timers);
    const baselineDom = await domCounts(cdp);
    t.diagnostic(
      `baseline: ${JSON.stringify({ ...baselineLive, ...baselineDom, globalListenerKeys: undefined })}`,
    );

    const samples: DomCounts[] = [];
    for (let first = WARM_UP_CYCLES; first < WARM_UP_CYCLES + CYCLES; first += BATCH) {
      await runCycles(page, first, BATCH, order);
      const live = await settle(page, baselineLive);
      assert.equal(live.timers, baselineLive.timers, `live timers after cycle ${first + BATCH}`);
      assert.equal(live.intervals, baselineLive.intervals, `live intervals after cycle ${first + BATCH}`);
      assert.deepEqual(
        live.globalListenerKeys,
        baselineLive.globalListenerKeys,
        `listeners on window/document after cycle ${first + BATCH}`,
      );
      samples.push(await domCounts(cdp));
    }
    t.diagnostic(`after each ${BATCH} cycles: ${JSON.stringify(samples)}`);
    const last = samples.at(-1) as DomCounts;
    assert.ok(last.nodes <= baselineDom.nodes + NODE_SLACK, `DOM nodes ${baselineDom.nodes} → ${last.nodes}`);
    assert.ok(
      last.jsEventListeners <= baselineDom.jsEventListeners + LISTENER_SLACK,
      `JS event listeners ${baselineDom.jsEventListeners} → ${last.jsEventListeners}`,
    );
    assert.ok(
      last.detachedNodes <= baselineDom.detachedNodes + DETACHED_SLACK,
      `detached nodes ${baselineDom.detachedNodes} → ${last.detachedNodes}`,
    );
    assert.equal(last.documents, baselineDom.documents);
    // No trend either: the counts after the last batch are no higher than after the first.
    const firstSample = samples[0] as DomCounts;
    assert.ok(
      last.nodes <= firstSample.nodes + NODE_SLACK,
      `DOM nodes grew: ${samples.map((s) => s.nodes).join(', ')}`,
    );
    assert.ok(
      last.jsEventListeners <= firstSample.jsEventListeners + LISTENER_SLACK,
      `JS listeners grew: ${samples.map((s) => s.jsEventListeners).join(', ')}`,
    );
    assert.equal(await page.locator('pay-checkout').count(), 0);
    assert.deepEqual(pageErrors, []);
  });
});
