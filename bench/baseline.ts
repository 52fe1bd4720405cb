/**
 * An earlier version of the relay to time beside the current one in the same
 * run, so that a before and an after share the machine's load (on a shared
 * machine, runs minutes apart differ more than the code does).
 *
 * `BENCH_BASELINE=<folder>` names a copy of an earlier commit with
 * `node_modules` linked in, for instance:
 *
 *     mkdir -p .tmp/baseline && git archive 7c3b567 | tar -x -C .tmp/baseline
 *     ln -s "$PWD/node_modules" .tmp/baseline/node_modules
 *
 * Its relay is built from its own modules and test fixtures, in front of its
 * own in-process sandbox; its embed and demo page are built from its sources
 * by its own configs; and its journal is driven through the calls of the
 * journals before they kept their own time (each write given `now`, each
 * claim and lookup a time to look again): the API of 2026-11-23.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Claimed, Journal, JournalClock, PendingEntry } from '../src/server/index.js';

/** What the create timing needs of a relay, whatever its version. */
export interface TimedRelay {
  create(request: Request): Response | Promise<Response>;
  close(): Promise<void>;
}

/** The part of a journal the journal benchmark drives, in today's terms. */
export type TimedJournal = Pick<
  Journal,
  'recordIntent' | 'recordCreated' | 'claimDue' | 'recordChecked' | 'close'
>;

/** The earlier version: a relay without a journal, or with the journal at a URL, made by its own code. */
export interface Baseline {
  folder: string;
  createRelay(journalUrl?: string): Promise<TimedRelay>;
  /** Its journal at `url`, each call given the time `clock` reads (details of an intent are dropped: it kept none). */
  openJournal(url: string, clock: JournalClock): Promise<TimedJournal>;
  /** Its one-file embed, built in memory by its own Vite config. */
  embedCode(): Promise<string>;
  /** Its demo page built into its `.tmp/bench-demo`, served by its own demo server (payer never answering). */
  startDemo(): Promise<{ url: string; close(): Promise<void> }>;
}

/** Builds the demo page of the checkout in `folder` into its `.tmp/bench-demo`, for {@link startDemoFrom}. */
export function buildDemoPage(folder: string): string {
  const outDir = resolve(folder, '.tmp/bench-demo');
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn', '--outDir', outDir], {
    cwd: folder,
    stdio: 'ignore',
  });
  return outDir;
}

/** Builds the demo page of the checkout in `folder` and starts its demo server on a free port. */
export async function startDemoFrom(folder: string): Promise<{ url: string; close(): Promise<void> }> {
  const pageRoot = buildDemoPage(folder);
  const demo = await importFrom(folder, 'demo/server/start-demo-server.ts');
  const start = demo.startDemoServer as (options: Module) => Promise<{ url: string; close(): Promise<void> }>;
  return start({ pageRoot, port: 0, sandboxApproveAfterMs: 600_000 });
}

/** A journal of the earlier API: every write and claim is told the time. */
interface EarlierJournal {
  recordIntent(intent: {
    idempotencyKey: string;
    createBody: unknown;
    now: number;
    resendAt: number;
  }): Promise<void>;
  recordCreated(
    key: string,
    answer: { orderId: string; paymentStatus: string; now: number; nextCheckAt: number },
  ): Promise<void>;
  claimDue(
    owner: string,
    options: { now: number; limit: number; leaseMs: number },
  ): Promise<Claimed<PendingEntry>[]>;
  recordChecked(
    key: string,
    owner: string,
    result: { paymentStatus: string; now: number; nextCheckAt: number },
  ): Promise<boolean>;
  close(): Promise<void>;
}

/** `earlier` driven through today's calls, at the time `clock` reads. */
function inTodaysTerms(earlier: EarlierJournal, clock: JournalClock): TimedJournal {
  return {
    recordIntent: ({ idempotencyKey, createBody, resendInMs }) =>
      earlier.recordIntent({
        idempotencyKey,
        createBody,
        now: clock.now(),
        resendAt: clock.now() + resendInMs,
      }),
    recordCreated: (key, { orderId, paymentStatus, nextCheckInMs }) =>
      earlier.recordCreated(key, {
        orderId,
        paymentStatus,
        now: clock.now(),
        nextCheckAt: clock.now() + nextCheckInMs,
      }),
    claimDue: (owner, { limit, leaseMs }) => earlier.claimDue(owner, { now: clock.now(), limit, leaseMs }),
    recordChecked: (key, owner, { paymentStatus, nextCheckInMs }) =>
      earlier.recordChecked(key, owner, {
        paymentStatus,
        now: clock.now(),
        nextCheckAt: clock.now() + nextCheckInMs,
      }),
    close: () => earlier.close(),
  };
}

type Module = Record<string, unknown>;

async function importFrom(folder: string, path: string): Promise<Module> {
  return (await import(pathToFileURL(resolve(folder, path)).href)) as Module;
}

/** The baseline named by `BENCH_BASELINE`, or `undefined` when none is. */
export async function loadBaseline(): Promise<Baseline | undefined> {
  const configured = process.env.BENCH_BASELINE;
  if (!configured) return undefined;
  const folder = resolve(configured);
  const server = await importFrom(folder, 'src/server/node.ts');
  const sandboxes = await importFrom(folder, 'src/sandbox/index.ts');
  const relayFixtures = await importFrom(folder, 'test/fixtures/relay.ts');
  const sandboxFixtures = await importFrom(folder, 'test/fixtures/sandbox.ts');
  const createCheckoutRelay = server.createCheckoutRelay as (options: Module) => TimedRelay;
  const openJournal = server.openJournal as (url: string) => Promise<EarlierJournal>;
  const createSandbox = sandboxes.createSandbox as (options: Module) => unknown;
  const mountSandbox = sandboxFixtures.mountSandbox as (sandbox: unknown) => string;
  return {
    folder,
    async createRelay(journalUrl) {
      const journal = journalUrl === undefined ? undefined : await openJournal(journalUrl);
      return createCheckoutRelay({
        secretKey: relayFixtures.SECRET,
        baseUrl: mountSandbox(createSandbox({ approveAfterMs: 24 * 3_600_000 })),
        priceCart: relayFixtures.priceCart,
        lookupSecret: relayFixtures.LOOKUP_SECRET,
        fetch: sandboxFixtures.sandboxFetch,
        rateLimit: false,
        onEvent: () => undefined,
        ...(journal ? { journal, onPaid: () => undefined, watch: { ticks: false } } : {}),
      });
    },
    openJournal: async (url, clock) => inTodaysTerms(await openJournal(url), clock),
    embedCode: async () => {
      const bundle = await importFrom(folder, 'test/fixtures/embed-bundle.ts');
      return (bundle.embedBundleCode as () => Promise<string>)();
    },
    startDemo: () => startDemoFrom(folder),
  };
}
