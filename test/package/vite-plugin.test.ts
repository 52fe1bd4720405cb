/**
 * `pay-checkout/vite` as a merchant gets it: the packed tarball installed
 * with Vite into a copy of examples/vite (the one-line
 * `vite.config.ts` of docs/frameworks.md), then `vite dev`, and `vite preview` after `vite build`,
 * run as the merchant runs them, each a child process on 127.0.0.1. In each,
 * Chromium pays on the example page; the payer (a test number that never
 * answers by itself) approves through the sandbox's control surface, and the
 * page's own `pay-paid` handler writes the order id.
 *
 * Needs `npm run build` first (the `test` script runs it). The install reaches
 * the npm registry only for what the local cache lacks.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs';
import { SANDBOX_KEYS, SANDBOX_TEST_NUMBERS } from '../../src/sandbox/index.js';
import { blockAfter, readPage } from '../fixtures/doc-blocks.js';
import { freePort } from '../fixtures/free-port.js';
import { installWithPackage, packRepository } from './packed-package.js';
import { runCommand } from './run-command.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const exampleDirectory = join(repositoryRoot, 'examples', 'vite');
const STARTED_TIMEOUT_MS = 60_000;

/** A `vite` command running in the consumer, its output kept. */
interface ViteChild {
  origin: string;
  output(): string;
  /** SIGTERM, as Ctrl-C or a process manager would stop it; resolves with how it ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Starts `vite <args>` on 127.0.0.1 and a free port, and waits for its start lines. */
async function startVite(cwd: string, args: string[]): Promise<ViteChild> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['node_modules/vite/bin/vite.js', ...args, '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const started = new Promise<boolean>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('pay-checkout sandbox:')) resolve(true);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then(() => resolve(false));
    setTimeout(() => resolve(false), STARTED_TIMEOUT_MS).unref();
  });
  const stop = async () => {
    const startedAt = performance.now();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const [code, signal] = await exited;
    return { code, signal, ms: Math.round(performance.now() - startedAt) };
  };
  if (!(await started)) {
    await stop();
    assert.fail(`vite ${args.join(' ')} did not print its start lines:\n${output}`);
  }
  return { origin: `http://127.0.0.1:${port}`, output: () => output, stop };
}

/** Every file under `directory`, as text. */
async function allText(directory: string): Promise<string> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('\n');
}

describe('pay-checkout/vite in a Vite app installed from the packed package', { timeout: 300_000 }, () => {
  let workDirectory: string;
  let consumer: string;
  let browser: Browser;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-vite-'));
    consumer = join(workDirectory, 'shop');
    const { tarball } = await packRepository(workDirectory);
    await cp(exampleDirectory, consumer, { recursive: true });
    await installWithPackage(consumer, tarball, 150_000);
    browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
  });

  after(async () => {
    await browser?.close();
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it("shows in docs/frameworks.md the example's vite.config.ts, word for word", async () => {
    const file = await readFile(join(exampleDirectory, 'vite.config.ts'), 'utf8');
    assert.equal(
      blockAfter(readPage('docs/frameworks.md'), 'example: examples/vite/vite.config.ts -->'),
      file,
    );
  });

  it("type-checks the example's config, pricing and page against Vite's and the package's types", async () => {
    const tsc = join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await runCommand(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer });
    assert.equal(result.code, 0, result.transcript);
  });

  /** Pays on the page at `origin`, approving through the sandbox's control surface; returns what the page shows. */
  async function payOn(
    origin: string,
  ): Promise<{ orderId: string; receipt: string | null; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    try {
      await page.goto(`${origin}/`);
      const checkout = page.locator('pay-checkout');
      await checkout.locator('[name="customer_name"]').fill('Esi Owusu');
      // The payer never answers by itself, so nothing but the control surface settles the payment.
      await checkout.locator('[name="number"]').fill(SANDBOX_TEST_NUMBERS.neverAnswers);
      const created = page.waitForResponse((response) => response.url().endsWith('/api/checkout/orders'));
      await checkout.locator('button[type="submit"]').click();
      const answer = (await (await created).json()) as { order: { id: string } };
      await page.locator('pay-checkout[state="requires_action"]').waitFor({ timeout: 20_000 });

      const approved = await fetch(`${origin}/sandbox/_sandbox/payments/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: answer.order.id }),
      });
      assert.equal(approved.status, 200, await approved.text());
      await page.locator('#receipt', { hasText: 'Paid' }).waitFor({ timeout: 20_000 });
      return { orderId: answer.order.id, receipt: await page.locator('#receipt').textContent(), problems };
    } finally {
      await page.close();
    }
  }

  it('vite dev: serves the relay and the sandbox, and a shopper pays', async () => {
    const vite = await startVite(consumer, []);
    try {
      assert.match(vite.output(), new RegExp(`pay-checkout relay: +${vite.origin}/api/checkout/orders`));
      assert.match(vite.output(), new RegExp(`pay-checkout sandbox: ${vite.origin}/sandbox \\(test mode`));
      const paid = await payOn(vite.origin);
      assert.equal(paid.receipt, `Paid: order ${paid.orderId}`);
      assert.deepEqual(paid.problems, []);
      assert.match(vite.output(), new RegExp(`pay-checkout: order ${paid.orderId}: payment paid`));
      // What the browser can load: the page and its module, none holding the key.
      const served = await Promise.all(
        ['/', '/main.ts'].map(async (path) => (await fetch(`${vite.origin}${path}`)).text()),
      );
      assert.ok(!served.join('\n').includes(SANDBOX_KEYS.secret), 'the dev server serves no secret key');
    } finally {
      const stopped = await vite.stop();
      assert.equal(
        stopped.signal,
        null,
        `vite dev ended by ${stopped.signal}, not by closing itself:\n${vite.output()}`,
      );
    }
  });

  it('vite build, then vite preview: the same checkout on the built page', async () => {
    const built = await runCommand(
      process.execPath,
      ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'],
      {
        cwd: consumer,
      },
    );
    assert.equal(built.code, 0, built.transcript);
    assert.ok(
      !(await allText(join(consumer, 'dist'))).includes(SANDBOX_KEYS.secret),
      'the build holds no secret key',
    );
    const vite = await startVite(consumer, ['preview']);
    try {
      const paid = await payOn(vite.origin);
      assert.equal(paid.receipt, `Paid: order ${paid.orderId}`);
      assert.deepEqual(paid.problems, []);
    } finally {
      const stopped = await vite.stop();
      assert.equal(stopped.signal, null, `vite preview ended by ${stopped.signal}:\n${vite.output()}`);
    }
  });
});
