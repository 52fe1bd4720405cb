/**
 * serve's memory (bench/serve.bench.ts runs it), as its own process
 * measures it (`process.memoryUsage()` after a full collection): idle after
 * start, then holding 10,000 pending orders created through it. The payer
 * of every order answers only after 24 hours, so all stay pending and its
 * watcher keeps looking them up; they come from distinct numbers, since
 * the default prompt limit allows one number 3 prompts in 10 minutes (the
 * sandbox's never-answering number alone would make 3 orders). While they
 * are made, the sandbox answers lookups busy, so serve's watcher backs off
 * instead of looking up thousands of orders every 3 s: on 2 shared cores
 * that would slow the creates to minutes. Every child runs under the tsx
 * loader, which weighs on its memory too: a bare `node:http` server in the
 * same kind of child is measured first, the floor serve's figures stand on.
 */
import { type ChildMemory, type ChildServer, runLoad, startServerInChild } from './lib.js';
import { BUSY_LOOKUPS_PATH } from './serve-children.js';
import { createRequests } from './serve-requests.js';

/** `BENCH_PENDING_ORDERS` shortens a quick run. */
const PENDING_ORDERS = Number(process.env.BENCH_PENDING_ORDERS ?? 10_000);
const CONNECTIONS = 20;
/** How long serve holds its pending orders before it is measured: the journal's writes done. */
const HOLD_SECONDS = 3;
const IDLE_SECONDS = 2;
const DAY_MS = 86_400_000;

const mebibytes = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10;

/** A child's memory in MiB. */
function inMebibytes(memory: ChildMemory) {
  return {
    rssMiB: mebibytes(memory.rss),
    heapUsedMiB: mebibytes(memory.heapUsed),
    heapTotalMiB: mebibytes(memory.heapTotal),
    externalMiB: mebibytes(memory.external),
  };
}

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** A bare `node:http` JSON server's memory, idle in a child like serve's. */
async function bareServerMemory() {
  const bare = await startServerInChild(new URL('./lib.ts', import.meta.url), 'startBareJsonServer', {}, [
    '--expose-gc',
  ]);
  try {
    await pause(IDLE_SECONDS);
    return inMebibytes(await bare.memory());
  } finally {
    await bare.close();
  }
}

/** serve's memory idle and with {@link PENDING_ORDERS} pending orders. */
export async function measureServeMemory(children: URL) {
  const bareServer = await bareServerMemory();
  const sandbox = await startServerInChild(children, 'serveBenchSandbox', {
    seededOrders: 0,
    approveAfterMs: DAY_MS,
  });
  let serve: ChildServer | undefined;
  try {
    serve = await startServerInChild(children, 'serveServe', { sandboxUrl: sandbox.url }, ['--expose-gc']);
    await pause(IDLE_SECONDS);
    const idle = inMebibytes(await serve.memory());
    await fetch(`${sandbox.url}${BUSY_LOOKUPS_PATH}/on`, { method: 'POST' });
    const createStart = performance.now();
    const created = await runLoad({
      url: `${serve.url}/checkout/orders`,
      connections: CONNECTIONS,
      amount: PENDING_ORDERS,
      headers: { 'content-type': 'application/json' },
      next: createRequests(),
    });
    const createSeconds = Math.round((performance.now() - createStart) / 100) / 10;
    await pause(HOLD_SECONDS);
    const holding = inMebibytes(await serve.memory());
    await fetch(`${sandbox.url}${BUSY_LOOKUPS_PATH}/off`, { method: 'POST' });
    const figures = {
      bareServer,
      idle,
      holding: { pendingOrders: created.totalRequests - created.non2xx, ...holding },
      createdPerSecond: created.requestsPerSecond,
      createSeconds,
      refusedCreates: created.non2xx + created.errors,
      heldSeconds: HOLD_SECONDS,
    };
    process.stdout.write(
      `serve memory (a bare node:http server in the same harness: RSS ${bareServer.rssMiB} MiB, heap used ${bareServer.heapUsedMiB} MiB): idle RSS ${idle.rssMiB} MiB (heap used ${idle.heapUsedMiB} MiB); with ${figures.holding.pendingOrders} pending orders RSS ${holding.rssMiB} MiB (heap used ${holding.heapUsedMiB} MiB), created in ${createSeconds} s, ${figures.refusedCreates} refused\n`,
    );
    return figures;
  } finally {
    await serve?.close();
    await sandbox.close();
  }
}
