/**
 * Soak (issue #7): steady checkouts against the relay and the sandbox for
 * `SOAK_SECONDS` (default 600), each server in its own child process, with
 * their memory sampled every `SOAK_SAMPLE_SECONDS` (default 5) after a full
 * garbage collection (heap used, RSS). After the warm-up a least-squares
 * line is fitted to each series; its slope is the growth trend.
 *
 * Shoppers speak the element's wire with its polling schedule
 * (test/fixtures/simulated-shopper.ts): `SOAK_RATE` new checkouts a second
 * (default 10), each a create then a lookup every 2 s until paid.
 *
 * Both servers hold bounded caches by design, and a growing cache is not a
 * leak, so each is at its cap before the warm-up ends: the relay's lookup-HMAC
 * memory and rate-limit buckets (10,000 each) are filled and churned at start; the
 * sandbox keeps `maxOrders` and `maxIdempotencyRecords` of rate × warm-up ÷ 2
 * (evicting the oldest), filled by the traffic itself. After the warm-up,
 * growth would be a leak. Writes bench/results/soak.json.
 */
import { setMaxListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createSandbox } from '../src/sandbox/index.js';
import { createCheckoutRelay, listen, type NodeListener, toNodeListener } from '../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import { priceAnyCart, UNLIMITED_PROMPTS } from '../test/fixtures/checkout-data.js';
import { createTestRelay } from '../test/fixtures/relay.js';
import { payAsShopper, payingNumber } from '../test/fixtures/simulated-shopper.js';
import { isMainModule, type StartedServer, startServerInChild, writeResults } from './lib.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RATE = Number(process.env.SOAK_RATE ?? 10);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 5);
const WARM_UP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? Math.min(120, Math.round(SECONDS * 0.2)));
const APPROVE_AFTER_MS = 2000;
/** Shopper addresses and numbers repeat after this many checkouts, as returning customers do. */
const SANDBOX_CAP = Math.max(50, Math.round((RATE * WARM_UP_SECONDS) / 2));
/** A fitted rise below this over the measured window is no growth trend. */
const GROWTH_LIMIT_BYTES = 1024 * 1024;
const RELAY_CACHE_SIZE = 10_000;
/** Rounds of use over the filled caches before the soak starts; see serveSoakRelay. */
const RELAY_CHURN_ROUNDS = 3;
const MEMORY_PATH = '/__soak/memory';
const ADDRESS_HEADER = 'x-soak-shopper-address';

/** One memory reading of a child, after a full garbage collection. */
interface MemorySample {
  heapUsed: number;
  rss: number;
  external: number;
}

let collectGarbage: (() => void) | undefined;

/** A full garbage collection in this process: `--expose-gc` turned on at run time, in the child only. */
function fullGc(): void {
  if (!collectGarbage) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
}

/** Wraps a listener to answer {@link MEMORY_PATH} with this process's memory after a GC. */
function withMemoryReport(listener: NodeListener): NodeListener {
  return (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (incoming.url !== MEMORY_PATH) return listener(incoming, outgoing);
    fullGc();
    const { heapUsed, rss, external } = process.memoryUsage();
    outgoing
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ heapUsed, rss, external }));
  };
}

/** Child-process starter: the sandbox, its stores capped so the soak reaches their steady state. */
export async function serveSoakSandbox({ cap }: { cap: number }): Promise<StartedServer> {
  const sandbox = createSandbox({
    approveAfterMs: APPROVE_AFTER_MS,
    maxOrders: cap,
    maxIdempotencyRecords: cap,
  });
  const server = await listen(
    withMemoryReport(toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES })),
  );
  return { url: server.url, close: server.close };
}

/** Child-process starter: the relay in front of the sandbox, its bounded caches filled to their caps. */
export async function serveSoakRelay({ sandboxUrl }: { sandboxUrl: string }): Promise<StartedServer> {
  const relay = createTestRelay(
    {
      baseUrl: sandboxUrl,
      priceCart: priceAnyCart,
      // Shoppers carry their (simulated) address: the product's per-address limits apply as they are.
      // The simulated shoppers reuse SANDBOX_CAP numbers, each about once a minute: far past the
      // per-number prompt limit, which is the relay's own tests' to check, not this soak's.
      rateLimit: {
        clientAddress: (request) => request.headers.get(ADDRESS_HEADER) ?? undefined,
        promptsPerNumber: UNLIMITED_PROMPTS,
      },
    },
    createCheckoutRelay,
  );
  // A lookup with a well-formed token for an unknown order: the relay remembers its HMAC (and a rate
  // bucket for its address) and answers 403 without calling the service. 10,000 fill both caches;
  // three more rounds over the same ids churn them (each use moves an entry to the back of its
  // least-recently-used Map) until V8 has grown their hash tables to the size they keep under churn.
  // Without it the first full run showed that growth (+0.9 MiB, once, at 213 s) after its warm-up.
  const forgedToken = 'A'.repeat(43);
  for (let index = 0; index < RELAY_CACHE_SIZE * (1 + RELAY_CHURN_ROUNDS); index++) {
    const slot = index % RELAY_CACHE_SIZE;
    await relay.lookup(
      new Request('http://relay.soak/api/checkout/lookup', {
        method: 'POST',
        headers: { 'content-type': 'application/json', [ADDRESS_HEADER]: `prefill-${slot}` },
        body: JSON.stringify({ order_id: `or_prefill${slot}`, lookup_token: forgedToken }),
      }),
    );
  }
  const server = await listen(withMemoryReport(relay.node));
  return { url: server.url, close: server.close };
}

async function memoryOf(url: string): Promise<MemorySample> {
  return (await (await fetch(`${url}${MEMORY_PATH}`)).json()) as MemorySample;
}

/** Least-squares line through (x, y): slope, intercept and R². */
function fitLine(points: [number, number][]): { slope: number; intercept: number; r2: number } {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [x, y] of points) {
    sxx += (x - meanX) ** 2;
    sxy += (x - meanX) * (y - meanY);
    syy += (y - meanY) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return {
    slope,
    intercept: meanY - slope * meanX,
    r2: sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy),
  };
}

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;

/** The trend of one series after the warm-up, in the units the README quotes. */
function trend(samples: { atSeconds: number; value: number }[]) {
  const steady = samples.filter((sample) => sample.atSeconds >= WARM_UP_SECONDS);
  const fit = fitLine(steady.map((sample) => [sample.atSeconds / 60, sample.value]));
  const windowMinutes = ((steady.at(-1)?.atSeconds ?? 0) - (steady[0]?.atSeconds ?? 0)) / 60;
  const third = Math.max(1, Math.floor(steady.length / 3));
  const mean = (values: { value: number }[]) =>
    values.reduce((sum, sample) => sum + sample.value, 0) / values.length;
  const fittedRise = fit.slope * windowMinutes;
  return {
    samplesAfterWarmUp: steady.length,
    slopeKiBPerMinute: Math.round((fit.slope / 1024) * 10) / 10,
    r2: Math.round(fit.r2 * 1000) / 1000,
    fittedRiseOverWindowMiB: mib(fittedRise),
    windowMinutes: Math.round(windowMinutes * 10) / 10,
    firstThirdMeanMiB: mib(mean(steady.slice(0, third))),
    lastThirdMeanMiB: mib(mean(steady.slice(-third))),
    minMiB: mib(Math.min(...steady.map((sample) => sample.value))),
    maxMiB: mib(Math.max(...samples.map((sample) => sample.value))),
    noGrowthTrend: fittedRise < GROWTH_LIMIT_BYTES,
  };
}

async function main(): Promise<void> {
  const here = new URL(import.meta.url);
  const sandbox = await startServerInChild(here, 'serveSoakSandbox', { cap: SANDBOX_CAP });
  const relay = await startServerInChild(here, 'serveSoakRelay', { sandboxUrl: sandbox.url });
  const samples: { atSeconds: number; relay: MemorySample; sandbox: MemorySample }[] = [];
  const checkouts = { started: 0, paid: 0, failed: 0, timedOut: 0, errors: 0, lookups: 0, failedLookups: 0 };
  const durationsMs: number[] = [];
  const errorMessages = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  const stop = new AbortController();
  // Every shopper's waits listen on this one signal (and let go when done): hundreds at a time is expected.
  setMaxListeners(0, stop.signal);
  const start = performance.now();
  const elapsedSeconds = () => (performance.now() - start) / 1000;

  async function sample(): Promise<void> {
    const [relayMemory, sandboxMemory] = await Promise.all([memoryOf(relay.url), memoryOf(sandbox.url)]);
    samples.push({
      atSeconds: Math.round(elapsedSeconds() * 10) / 10,
      relay: relayMemory,
      sandbox: sandboxMemory,
    });
  }

  function checkout(index: number): void {
    const began = performance.now();
    checkouts.started++;
    const address = `10.2.${Math.floor((index % SANDBOX_CAP) / 250)}.${(index % SANDBOX_CAP) % 250}`;
    const run = payAsShopper({
      createUrl: `${relay.url}/api/checkout/orders`,
      lookupUrl: `${relay.url}/api/checkout/lookup`,
      name: `Soak shopper ${index % SANDBOX_CAP}`,
      number: payingNumber(index % SANDBOX_CAP),
      signal: stop.signal,
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), [ADDRESS_HEADER]: address },
        }),
    }).then(
      (outcome) => {
        checkouts.lookups += outcome.lookups;
        checkouts.failedLookups += outcome.failedLookups;
        if (outcome.state === 'paid') {
          checkouts.paid++;
          durationsMs.push(performance.now() - began);
        } else if (outcome.state === 'failed') checkouts.failed++;
        else checkouts.timedOut++;
      },
      (error: unknown) => {
        if (stop.signal.aborted) return;
        checkouts.errors++;
        const message = error instanceof Error ? error.message : String(error);
        errorMessages.set(message, (errorMessages.get(message) ?? 0) + 1);
      },
    );
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  }

  process.stdout.write(
    `soak: ${SECONDS} s at ${RATE} checkouts/s, warm-up ${WARM_UP_SECONDS} s, memory every ${SAMPLE_SECONDS} s\n`,
  );
  try {
    await sample();
    let next = 0;
    let nextSampleAt = SAMPLE_SECONDS;
    while (elapsedSeconds() < SECONDS) {
      // Steady: the checkout due by now starts now, whatever the previous ones are doing.
      while (next < elapsedSeconds() * RATE) checkout(next++);
      if (elapsedSeconds() >= nextSampleAt) {
        await sample();
        nextSampleAt += SAMPLE_SECONDS;
        const last = samples.at(-1);
        if (last && Math.round(last.atSeconds) % 60 < SAMPLE_SECONDS) {
          process.stdout.write(
            `  ${Math.round(last.atSeconds)} s: ${checkouts.paid} paid, ${checkouts.errors} errors; relay heap ${mib(last.relay.heapUsed)} MiB rss ${mib(last.relay.rss)} MiB; sandbox heap ${mib(last.sandbox.heapUsed)} MiB rss ${mib(last.sandbox.rss)} MiB\n`,
          );
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The checkouts under way finish (their payers approve within seconds); then the servers are measured once more.
    await Promise.race([Promise.all(inFlight), new Promise((resolve) => setTimeout(resolve, 30_000))]);
    stop.abort();
    await sample();
  } finally {
    stop.abort();
    await relay.close();
    await sandbox.close();
  }

  const series = (server: 'relay' | 'sandbox', field: keyof MemorySample) =>
    samples.map((entry) => ({ atSeconds: entry.atSeconds, value: entry[server][field] }));
  durationsMs.sort((a, b) => a - b);
  const at = (fraction: number) => Math.round(durationsMs[Math.floor(durationsMs.length * fraction)] ?? 0);
  const memory = {
    relay: { heapUsed: trend(series('relay', 'heapUsed')), rss: trend(series('relay', 'rss')) },
    sandbox: { heapUsed: trend(series('sandbox', 'heapUsed')), rss: trend(series('sandbox', 'rss')) },
  };
  const verdict = memory.relay.heapUsed.noGrowthTrend && memory.sandbox.heapUsed.noGrowthTrend;
  const file = await writeResults('soak', {
    settings: {
      seconds: SECONDS,
      checkoutsPerSecond: RATE,
      warmUpSeconds: WARM_UP_SECONDS,
      sampleEverySeconds: SAMPLE_SECONDS,
      sandbox: `child process; approveAfterMs ${APPROVE_AFTER_MS}; maxOrders and maxIdempotencyRecords ${SANDBOX_CAP}`,
      relay: `child process; default transport (on Node, undici's request); per-address rate limits (product defaults); lookup-HMAC memory and rate buckets filled to ${RELAY_CACHE_SIZE} and used ${RELAY_CHURN_ROUNDS} more rounds at start`,
      shoppers: `test/fixtures/simulated-shopper.ts: create, then a lookup every 2 s until paid; ${SANDBOX_CAP} numbers and addresses, reused in turn`,
      memory: 'process.memoryUsage() in each child after a full GC (global.gc exposed at run time)',
      noGrowthTrend: `the least-squares line through the samples after the warm-up rises less than ${mib(GROWTH_LIMIT_BYTES)} MiB over the window`,
    },
    checkouts: {
      ...checkouts,
      completedPerSecond: Math.round((checkouts.paid / SECONDS) * 10) / 10,
      createToPaidP50Ms: at(0.5),
      createToPaidP99Ms: at(0.99),
      errorMessages: Object.fromEntries(errorMessages),
    },
    memory,
    verdict: { bounded: verdict, noGrowthTrendAfterWarmUp: verdict },
    samples: samples.map((entry) => ({
      atSeconds: entry.atSeconds,
      relayHeapMiB: mib(entry.relay.heapUsed),
      relayRssMiB: mib(entry.relay.rss),
      sandboxHeapMiB: mib(entry.sandbox.heapUsed),
      sandboxRssMiB: mib(entry.sandbox.rss),
    })),
  });
  process.stdout.write(
    `checkouts: ${checkouts.paid} paid, ${checkouts.errors} errors, ${checkouts.timedOut} timed out; create→paid p50 ${at(0.5)} ms, p99 ${at(0.99)} ms\n` +
      `relay heap after warm-up: slope ${memory.relay.heapUsed.slopeKiBPerMinute} KiB/min (R² ${memory.relay.heapUsed.r2}), ${memory.relay.heapUsed.minMiB}–${memory.relay.heapUsed.maxMiB} MiB\n` +
      `sandbox heap after warm-up: slope ${memory.sandbox.heapUsed.slopeKiBPerMinute} KiB/min (R² ${memory.sandbox.heapUsed.r2}), ${memory.sandbox.heapUsed.minMiB}–${memory.sandbox.heapUsed.maxMiB} MiB\n` +
      `no growth trend: ${verdict ? 'yes' : 'NO'}\nwrote ${file}\n`,
  );
  if (checkouts.errors > 0 || checkouts.paid === 0) process.exitCode = 1;
}

if (isMainModule(import.meta.url)) await main();
