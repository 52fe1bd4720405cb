/**
 * The PHP and Python example shops (examples/php-shop/, examples/python-shop/)
 * as their package tests run them: installed once from the packed tarball,
 * then the commands of docs/no-javascript.md run as they are written, in
 * bash, in the shop's folder: the keys into `.env`, `npx pay-checkout serve`,
 * and `php -S …` or `python3 shop.py`. What differs from the page: the
 * tarball stands for `pay-checkout` in `npm install`, and free ports for 8787
 * and 8000 (serve's in `pay-checkout.json`, the PHP shop's in its command,
 * the Python shop's in `PORT`, both shops told serve's in `PAY_CHECKOUT_URL`).
 * Each process runs in a process group of its own, so that a signal reaches
 * serve itself and not only the `npx` in front of it. Not a test file.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { cp, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { customerPayingFrom } from '../fixtures/checkout-data.js';
import { blockAfter, readPage } from '../fixtures/doc-blocks.js';
import { freePort } from '../fixtures/free-port.js';
import { eventually } from '../fixtures/wait.js';
import { installWithPackage, packRepository } from './packed-package.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The two shops, by the language they are written in. */
export type ShopLanguage = 'php' | 'python';

/** The page whose commands the tests run. */
const GUIDE = 'docs/no-javascript.md';

/** The commands of the page's block `<!-- shop-commands: NAME -->`. */
export function guideCommands(name: 'install' | 'keys' | 'serve' | 'webhooks' | ShopLanguage): string {
  const block = blockAfter(readPage(GUIDE), `shop-commands: ${name} -->`);
  assert.ok(block !== undefined, `${GUIDE} has no ${name} commands`);
  return block;
}

/** The two shops' folders, installed. */
export interface InstalledShops {
  php: string;
  python: string;
}

/**
 * Copies both example shops into `workDirectory` and installs the packed package into them once:
 * the page's `npm install pay-checkout`, with the tarball for the package, in the PHP shop's
 * folder; the Python shop's folder links to the same `node_modules`.
 */
export async function installShops(workDirectory: string): Promise<InstalledShops> {
  assert.equal(guideCommands('install'), 'npm install pay-checkout\n');
  for (const [program, debianPackage] of [
    ['php', 'php-cli'],
    ['python3', 'python3'],
  ]) {
    const found = spawnSync(program as string, ['--version'], { stdio: 'ignore' });
    assert.equal(found.status, 0, `no ${program}: install Debian's ${debianPackage} (.ci/run does)`);
  }
  const { tarball } = await packRepository(workDirectory);
  const shops = { php: join(workDirectory, 'php-shop'), python: join(workDirectory, 'python-shop') };
  for (const language of ['php', 'python'] as const) {
    const example = join(repositoryRoot, 'examples', `${language}-shop`);
    await cp(example, shops[language], {
      recursive: true,
      filter: (path) =>
        !/(?:^|\/)(?:node_modules|\.data|__pycache__)(?:\/|$)/.test(path.slice(example.length)),
    });
  }
  await installWithPackage(shops.php, tarball);
  await symlink(join(shops.php, 'node_modules'), join(shops.python, 'node_modules'), 'dir');
  return shops;
}

/** Runs the page's `keys` commands in `folder`; answers what they wrote into `.env`. */
export async function makeKeys(folder: string): Promise<Record<string, string>> {
  const child = spawn('bash', ['-c', guideCommands('keys')], { cwd: folder, stdio: 'inherit' });
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, 'the keys commands');
  const lines = (await readFile(join(folder, '.env'), 'utf8')).trim().split('\n');
  // At the first `=` only: a base64 secret may end in `=`.
  return Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/**
 * Sets serve's port and the shops' origins in `folder`'s pay-checkout.json, with any `more` keys;
 * the file's webhook endpoint (the shop's receiver) becomes one endpoint per origin.
 */
export async function configureServe(
  folder: string,
  port: number,
  origins: string[],
  more: Record<string, unknown> = {},
): Promise<void> {
  const path = join(folder, 'pay-checkout.json');
  const configuration = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  assert.ok(
    existsSync(join(folder, String(configuration.$schema))),
    'the configuration’s $schema is in the installed package',
  );
  const listen = { host: '127.0.0.1', port };
  // The shop's receiver as the shops ship it (one file for both), on each shop's free port.
  const shipped = JSON.parse(
    readFileSync(join(repositoryRoot, 'examples/php-shop/pay-checkout.json'), 'utf8'),
  );
  const receiver = (shipped.webhooks as { url: string }[] | undefined)?.[0] ?? { url: '' };
  assert.match(
    receiver.url,
    /^http:\/\/127\.0\.0\.1:8000\/webhooks\/pay$/,
    'the shop’s receiver is an endpoint',
  );
  const receiverPath = new URL(receiver.url).pathname;
  const webhooks = origins.map((origin) => ({ ...receiver, url: `${origin}${receiverPath}` }));
  const written = { ...configuration, listen, origins, webhooks, ...more };
  await writeFile(path, `${JSON.stringify(written, null, 2)}\n`);
}

/** One webhook a shop printed it received: its id, its type, and whether it had handled it before. */
export interface ReceivedWebhook {
  id: string;
  type: string;
  handledBefore: boolean;
}

/** The webhooks `shop` printed it received, in order. */
export function receivedWebhooks(shop: GuideProcess): ReceivedWebhook[] {
  return shop.lines.flatMap((line) => {
    const match = /^webhook (\S+): (\S+?)(, handled before)?$/.exec(line);
    if (!match) return [];
    return [{ id: match[1] as string, type: match[2] as string, handledBefore: match[3] !== undefined }];
  });
}

/** A lock on a shop's orders file held by another process, as a slow disk or a long backup would. */
export interface HeldOrdersLock {
  release(): Promise<void>;
}

/**
 * Takes the lock the shop in `folder` records orders under (`.data/orders.json.lock`, flock) in a
 * python3 process of its own: the shop's receiver then holds the delivery it is handling until
 * `release`.
 */
export async function holdOrdersLock(folder: string): Promise<HeldOrdersLock> {
  const script = [
    'import fcntl, os, sys',
    "os.makedirs('.data', mode=0o700, exist_ok=True)",
    "lock = open('.data/orders.json.lock', 'a')",
    'fcntl.flock(lock, fcntl.LOCK_EX)',
    "print('held', flush=True)",
    'sys.stdin.read()',
  ].join('\n');
  const holder = spawn('python3', ['-c', script], { cwd: folder, stdio: ['pipe', 'pipe', 'inherit'] });
  heldLocks.add(holder);
  const exited = once(holder, 'exit');
  await new Promise<void>((resolve, reject) => {
    holder.stdout?.setEncoding('utf8').once('data', () => resolve());
    exited.then(() => reject(new Error('the lock holder exited')), reject);
  });
  return {
    release: async () => {
      holder.stdin?.end();
      await exited;
      heldLocks.delete(holder);
    },
  };
}

/** The lock holders still running, killed with the groups a failed test left. */
const heldLocks = new Set<ChildProcess>();

/** A process the page's commands started: its group, its output line by line. */
export interface GuideProcess {
  url: string;
  port: number;
  child: ChildProcess;
  lines: string[];
  errors: string[];
  /** Resolves with the first line (printed or to come) that `matches`. */
  line(matches: (line: string) => boolean): Promise<string>;
}

/** Every process group started, so a test file can kill what a failed test left running. */
export const runningGroups = new Set<ChildProcess>();

/** Runs `script` in bash in `folder`, in a process group of its own, its output kept line by line. */
function runInGroup(folder: string, script: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', script], {
    cwd: folder,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  runningGroups.add(child);
  child.once('exit', () => runningGroups.delete(child));
  const lines: string[] = [];
  const errors: string[] = [];
  const waiting = new Set<{ matches: (line: string) => boolean; resolve: (line: string) => void }>();
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => errors.push(chunk));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (printed) => {
    lines.push(printed);
    for (const waiter of waiting) {
      if (!waiter.matches(printed)) continue;
      waiting.delete(waiter);
      waiter.resolve(printed);
    }
  });
  const exited = once(child, 'exit');
  const line = (matches: (line: string) => boolean) => {
    const seen = lines.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return Promise.race([
      new Promise<string>((resolve) => waiting.add({ matches, resolve })),
      exited.then(([code, signal]) => {
        throw new Error(`${script} exited (${code ?? signal}):\n${[...lines, ...errors].join('\n')}`);
      }),
    ]);
  };
  return { child, lines, errors, line };
}

/** Fails naming what `running` printed when it exits before it answers `probe`. */
async function answering(
  what: string,
  running: ReturnType<typeof runInGroup>,
  probe: () => Promise<boolean>,
): Promise<void> {
  await eventually(
    () => `${what} to answer; it printed:\n${[...running.lines, ...running.errors].join('\n')}`,
    async () => {
      if (running.child.exitCode !== null || running.child.signalCode !== null)
        throw new Error(`${what} exited`);
      return probe();
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

/**
 * Starts the page's `serve` commands in `folder` (configured for `port`), with `env` besides what
 * `.env` holds; resolves once /healthz answers.
 */
export async function startServeCommand(
  folder: string,
  port: number,
  env: Record<string, string> = {},
): Promise<GuideProcess> {
  const running = runInGroup(folder, guideCommands('serve'), env);
  const url = `http://127.0.0.1:${port}`;
  await answering('serve', running, async () => (await fetch(`${url}/healthz`)).status === 200);
  return { url, port, ...running };
}

/** Starts the page's command for the `language` shop in `folder`, paying through `serveUrl`. */
export async function startShopCommand(
  folder: string,
  language: ShopLanguage,
  serveUrl: string,
  port?: number,
): Promise<GuideProcess> {
  const shopPort = port ?? (await freePort());
  const commands = guideCommands(language);
  const script = language === 'php' ? commands.replace('127.0.0.1:8000', `127.0.0.1:${shopPort}`) : commands;
  assert.ok(language === 'python' || script !== commands, 'the PHP shop’s command names its address');
  const running = runInGroup(folder, script, { PAY_CHECKOUT_URL: serveUrl, PORT: String(shopPort) });
  const url = `http://127.0.0.1:${shopPort}`;
  // A path neither shop has: a 404 says it runs, and makes no checkout.
  await answering(`the ${language} shop`, running, async () => (await fetch(`${url}/ready`)).status === 404);
  return { url, port: shopPort, ...running };
}

/** Sends `signal` to the whole group of `running` and resolves once bash has exited. */
export async function signalGroup(running: GuideProcess, signal: NodeJS.Signals): Promise<void> {
  const { child } = running;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  process.kill(-(child.pid as number), signal);
  await exited;
}

/** Kills every group still running (a failed test's leftovers). */
export function killRunningGroups(): void {
  for (const holder of heldLocks) holder.kill('SIGKILL');
  for (const child of runningGroups) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** One paid order as a shop recorded it in `.data/orders.json`. */
export interface RecordedOrder {
  order_id: string;
  items: { name: string; quantity: number }[];
  amount: { currency: string; value: number };
  paid_at: string;
}

/** What the shop in `folder` recorded, by reference (nothing yet: empty). */
export function recordedOrders(folder: string): Record<string, RecordedOrder> {
  const path = join(folder, '.data', 'orders.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, RecordedOrder>) : {};
}

/** A product page as the shop rendered it: the page, the checkout's client secret, its thank-you path. */
export interface ProductPage {
  html: string;
  clientSecret: string;
  thankYou: string;
  reference: string;
}

/** Loads the product page of `shop` for `query` (`product`, `quantity`). */
export async function productPage(shop: GuideProcess, query: Record<string, string>): Promise<ProductPage> {
  const response = await fetch(`${shop.url}/?${new URLSearchParams(query)}`);
  const html = await response.text();
  assert.equal(response.status, 200, html);
  const clientSecret = /<pay-checkout checkout="([^"]+)"/.exec(html)?.[1];
  const thankYou = /data-thank-you="([^"]+)"/.exec(html)?.[1];
  assert.ok(clientSecret && thankYou, html);
  const reference = new URLSearchParams(thankYou.split('?')[1]).get('reference') as string;
  return { html, clientSecret, thankYou, reference };
}

/** Creates an order for `checkout` at serve as the shop's page does, paid from `number`. */
export async function payAtServe(
  serve: GuideProcess,
  shop: GuideProcess,
  checkout: ProductPage,
  number: string,
): Promise<{ orderId: string; lookupToken: string }> {
  const response = await fetch(`${serve.url}/checkout/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), origin: shop.url },
    body: JSON.stringify({ ...customerPayingFrom(number), checkout: checkout.clientSecret }),
  });
  const body = (await response.json()) as { order?: { id: string }; lookup_token?: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return { orderId: body.order?.id as string, lookupToken: body.lookup_token as string };
}

/** Runs the page's `webhooks` commands in `folder`, for the shop at `shopUrl`; answers what they printed. */
export async function runWebhookCommands(
  folder: string,
  shopUrl: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const commands = guideCommands('webhooks');
  const script = commands.replaceAll('http://127.0.0.1:8000', shopUrl);
  assert.notEqual(script, commands, 'the webhooks commands name the shop’s receiver');
  const child = spawn('bash', ['-c', script], {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

/** `count` distinct loopback ports, free when asked: serve and each shop get one of their own. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
