/**
 * serve's memory (bench/serve.bench.ts runs it), as its own process
 * measures it (`process.memoryUsage()` after a full collection): idle after
 * start, then holding 10,000 pending orders created through it. The payer
 * of every order answers only after 24 hours, so all stay pending and its
 * watcher keeps looking them up; they come from distinct numbers, since
 * the default prompt limit allows one number 3 prompts in 10 minutes (the
 * sandbox's never-answering number alone would make 3 orders). The watcher's
 * CPU over the hold is reported beside.
 */
import { type ChildMemory, type ChildServer, runLoad, startServerInChild } from './lib.js';
import { createRequests } from './serve-requests.js';

const PENDING_ORDERS = 10_000;
const CONNECTIONS = 20;
/** How long serve holds its pending orders before it is measured: its watcher's passes over them. */
const HOLD_SECONDS = 6;
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

/** serve's memory idle and with {@link PENDING_ORDERS} pending orders, and its watcher's CPU then. */
export async function measureServeMemory(children: URL) {
  const sandbox = await startServerInChild(children, 'serveBenchSandbox', {
    seededOrders: 0,
    approveAfterMs: DAY_MS,
  });
  let serve: ChildServer | undefined;
  try {
    serve = await startServerInChild(children, 'serveServe', { sandboxUrl: sandbox.url }, ['--expose-gc']);
    await pause(IDLE_SECONDS);
    const idle = inMebibytes(await serve.memory());
    const created = await runLoad({
      url: `${serve.url}/checkout/orders`,
      connections: CONNECTIONS,
      amount: PENDING_ORDERS,
      headers: { 'content-type': 'application/json' },
      next: createRequests(),
    });
    const cpuBefore = await serve.cpuMicroseconds();
    await pause(HOLD_SECONDS);
    const watcherShareOfACore =
      Math.round(((await serve.cpuMicroseconds()) - cpuBefore) / (HOLD_SECONDS * 10_000)) / 100;
    const holding = inMebibytes(await serve.memory());
    const figures = {
      idle,
      holding: { pendingOrders: created.totalRequests - created.non2xx, ...holding },
      createdPerSecond: created.requestsPerSecond,
      refusedCreates: created.non2xx + created.errors,
      heldSeconds: HOLD_SECONDS,
      watcherShareOfACore,
    };
    process.stdout.write(
      `serve memory: idle RSS ${idle.rssMiB} MiB (heap used ${idle.heapUsedMiB} MiB); with ${figures.holding.pendingOrders} pending orders RSS ${holding.rssMiB} MiB (heap used ${holding.heapUsedMiB} MiB), created at ${created.requestsPerSecond}/s, ${figures.refusedCreates} refused; its watcher then took ${Math.round(watcherShareOfACore * 100)} % of a core\n`,
    );
    return figures;
  } finally {
    await serve?.close();
    await sandbox.close();
  }
}
