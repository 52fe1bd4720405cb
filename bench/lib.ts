/**
 * Shared helpers of the benchmarks (`npm run bench` runs every
 * `bench/*.bench.ts`): load with autocannon, a bare `node:http` JSON server
 * as the baseline, servers in a child process so the load generator and the
 * server under test never share one event loop, and the results file.
 *
 * Run as a script (`node --import tsx bench/lib.ts --serve <module> <export> <json>`),
 * this module is that child: it imports the module, calls the export with the
 * JSON argument and prints what it answers as one JSON line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { listen } from '../src/http/node/listen.js';

/** What a load run is given. */
export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  /** Concurrent connections. Default 10. */
  connections?: number;
  /** Seconds of load. Default 10. */
  durationSeconds?: number;
  /** Requests to send in all, in place of a duration. */
  amount?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Replace `[<id>]` in the body and headers with a fresh id per request (unique idempotency keys). */
  idReplacement?: boolean;
  /** Bodies sent in turn, one per request, across all connections (`body` is then the first). */
  bodies?: readonly string[];
  /**
   * Called once per request for its body and extra headers, across all
   * connections, in place of `bodies`: a request that must never repeat
   * across runs (a fresh number, a fresh client address) comes from a counter.
   */
  next?: () => { body?: string; headers?: Record<string, string> };
}

/** The figures of one load run. */
export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Answers outside 2xx. */
  non2xx: number;
  totalRequests: number;
}

/** A server started in a child process; `info` is whatever its starter returned beside `url`. */
export interface ChildServer<Info = unknown> {
  url: string;
  info: Info;
  /**
   * CPU time (user + system, µs) the child has used so far. Differences around
   * a load run give CPU per request, steadier than requests/s on a shared machine.
   */
  cpuMicroseconds(): Promise<number>;
  /** The child's memory as it measures it itself, after a full collection when it runs with `--expose-gc`. */
  memory(): Promise<ChildMemory>;
  close(): Promise<void>;
}

/** A child's resident set and heap, in bytes. */
export interface ChildMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** What a child-process starter returns: its URL, anything the benchmark needs to know, and a close. */
export interface StartedServer<Info = unknown> {
  url: string;
  info?: Info;
  close?(): Promise<void>;
}

/** The machine a figure was measured on. */
export interface MachineInfo {
  cpus: number;
  model: string;
  memory: string;
  node: string;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: { p50: number; p99: number; totalCount: number };
  requests: { total: number };
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

// autocannon is CommonJS without type declarations; this is the part of it used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Runs autocannon against a URL and keeps the figures that matter. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'POST',
    connections: options.connections ?? 10,
    duration: options.durationSeconds ?? 10,
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    body: options.body,
    headers: options.headers,
    idReplacement: options.idReplacement ?? false,
    ...(options.bodies ? { requests: [{ setupRequest: inTurn(options.bodies) }] } : {}),
    ...(options.next ? { requests: [{ setupRequest: fromNext(options.next) }] } : {}),
  });
  return {
    requestsPerSecond: Math.round(result.requests.total / result.duration),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    totalRequests: result.requests.total,
  };
}

/** An autocannon `setupRequest` giving each request the next of `bodies`, round the list. */
function inTurn(bodies: readonly string[]) {
  let next = 0;
  return (request: Record<string, unknown>) => {
    request.body = bodies[next++ % bodies.length];
    return request;
  };
}

/** An autocannon `setupRequest` giving each request what `next` answers. */
function fromNext(next: NonNullable<LoadOptions['next']>) {
  return (request: Record<string, unknown>) => {
    const { body, headers } = next();
    if (body !== undefined) request.body = body;
    if (headers) request.headers = { ...(request.headers as Record<string, string>), ...headers };
    return request;
  };
}

/**
 * The baseline: a bare `node:http` server that reads the JSON body, parses it
 * and answers a small JSON object, the least any JSON endpoint does.
 */
export async function startBareJsonServer(): Promise<StartedServer> {
  return listen((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let answer: string;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        answer = JSON.stringify({ order: { id: body.order_id ?? null, status: 'requires_payment' } });
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad json"}');
        return;
      }
      response
        .writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-store',
          'content-length': Buffer.byteLength(answer),
        })
        .end(answer);
    });
  });
}

/**
 * Starts a server in a child Node process: `exportName` of `module` is called
 * with `argument` and must resolve to a {@link StartedServer}. `nodeOptions`
 * go to that Node (`--expose-gc`, `--cpu-prof`).
 */
export async function startServerInChild<Info = unknown>(
  module: URL,
  exportName: string,
  argument: unknown = {},
  nodeOptions: readonly string[] = [],
): Promise<ChildServer<Info>> {
  const child = spawn(
    process.execPath,
    [
      ...nodeOptions,
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--serve',
      module.href,
      exportName,
      JSON.stringify(argument),
    ],
    { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  const ready = await new Promise<{ url: string; info: Info }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> });
    lines.once('line', (line) => resolve(JSON.parse(line) as { url: string; info: Info }));
    child.once('exit', (code) => reject(new Error(`The server child exited early (code ${code}).`)));
  });
  return {
    url: ready.url,
    info: ready.info,
    cpuMicroseconds: () =>
      new Promise<number>((resolve) => {
        child.once('message', (message) => resolve((message as { cpuMicroseconds: number }).cpuMicroseconds));
        child.send('cpu');
      }),
    memory: () =>
      new Promise<ChildMemory>((resolve) => {
        child.once('message', (message) => resolve((message as { memory: ChildMemory }).memory));
        child.send('memory');
      }),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The machine, for the results file. */
export function machineInfo(): MachineInfo {
  const processors = cpus();
  return {
    cpus: processors.length,
    model: processors[0]?.model ?? 'unknown',
    memory: `${Math.round(totalmem() / 1024 ** 3)} GiB`,
    node: process.version,
  };
}

/**
 * The machine's load average now (1, 5 and 15 minutes). On 2 cores shared
 * with other work, a figure is read beside the load it was measured under.
 */
export function loadAverage(): [number, number, number] {
  const [one = 0, five = 0, fifteen = 0] = loadavg().map((value) => Math.round(value * 100) / 100);
  return [one, five, fifteen];
}

const loadAverageAtStart = loadAverage();

/**
 * Writes `bench/results/NAME.json` with the date, the machine and its load
 * average when the benchmark started and now; returns its path.
 */
export async function writeResults(name: string, figures: Record<string, unknown>): Promise<string> {
  const directory = new URL('./results/', import.meta.url);
  await mkdir(directory, { recursive: true });
  const file = new URL(`${name}.json`, directory);
  const content = {
    date: new Date().toISOString(),
    machine: machineInfo(),
    loadAverage: { atStart: loadAverageAtStart, atEnd: loadAverage() },
    ...figures,
  };
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`);
  return fileURLToPath(file);
}

/** Median time of `iterations` calls of `run`, in microseconds, after as many calls to warm up. */
export async function medianMicroseconds(iterations: number, run: () => unknown): Promise<number> {
  for (let index = 0; index < iterations; index++) await run();
  const times: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const start = performance.now();
    await run();
    times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[Math.floor(times.length / 2)] ?? 0) * 10) / 10;
}

/** True when the module at `moduleUrl` is the script Node was started with. */
export function isMainModule(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(script).href === moduleUrl;
}

async function serveFromChild(moduleHref: string, exportName: string, argument: string): Promise<void> {
  const module = (await import(moduleHref)) as Record<string, (argument: unknown) => Promise<StartedServer>>;
  const start = module[exportName];
  if (typeof start !== 'function') throw new Error(`${moduleHref} has no export ${exportName}.`);
  const started = await start(JSON.parse(argument));
  process.on('message', (message) => {
    if (message === 'memory') {
      (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
      process.send?.({ memory: { rss, heapUsed, heapTotal, external } });
      return;
    }
    if (message !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicroseconds: user + system });
  });
  // The IPC channel must not keep the child alive on its own, and the child goes when its parent does.
  process.channel?.unref();
  process.once('disconnect', () => process.exit(0));
  process.once('SIGTERM', () => {
    void (started.close?.() ?? Promise.resolve()).finally(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify({ url: started.url, info: started.info ?? null })}\n`);
}

if (isMainModule(import.meta.url) && process.argv[2] === '--serve') {
  const [moduleHref, exportName, argument] = process.argv.slice(3);
  if (!moduleHref || !exportName) throw new Error('Usage: lib.ts --serve <module URL> <export> [<JSON>]');
  // Not awaited at the top level: the served module imports this one, and a
  // pending top-level await here would leave that import waiting forever.
  serveFromChild(moduleHref, exportName, argument ?? '{}').catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
