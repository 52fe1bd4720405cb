/**
 * `pay-checkout serve` as a command, from the sources: `--check` judges a
 * configuration and the environment with exit codes and each mistake named,
 * and SIGTERM under a stream of creates answers every one in flight, refuses
 * new connections, and exits 0 with no 5xx and every order in its journal.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openJournal } from '../../../src/server/index.js';
import { runCli as runCliFrom } from '../../fixtures/pay-checkout-cli.js';
import { startTestServe, TEST_CATALOGUE } from '../../fixtures/serve.js';
import { SOURCE_CLI_ANYWHERE, startServeCommand } from '../../fixtures/serve-command.js';
import { checkShutdownUnderTraffic } from '../../package/shutdown-traffic.js';

/** `pay-checkout args…` from the sources, in `options.cwd`. */
function runCli(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return runCliFrom(args, { ...options, launcher: SOURCE_CLI_ANYWHERE });
}

/** The environment of a merchant who set no secret. */
function bareEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { PAY_SECRET_KEY: _a, PAY_CHECKOUT_API_KEY: _b, PAY_LOOKUP_SECRET: _c, ...env } = process.env;
  return { ...env, ...extra };
}

describe('pay-checkout serve, the command', { timeout: 120_000 }, () => {
  let folder: string;

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'pay-checkout-serve-command-'));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  const write = async (name: string, content: unknown) => {
    const path = join(folder, name);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  };

  it('--check exits 0 for a valid configuration and environment', async () => {
    await write('pay-checkout.json', { catalogue: TEST_CATALOGUE, origins: ['https://shop.example'] });
    const result = await runCli(['serve', '--check'], { cwd: folder, env: bareEnvironment() });
    assert.equal(result.code, 0, result.transcript);
    assert.match(result.stdout, /pay-checkout\.json and the environment are valid/);
  });

  it('--check exits 1 naming each field that is wrong and what it expected', async () => {
    const file = await write('bad.json', { listen: { port: 99_999 }, origins: ['shop.example'], colour: 1 });
    const result = await runCli(['serve', '--config', file, '--check'], {
      cwd: folder,
      env: bareEnvironment(),
    });
    assert.equal(result.code, 1, result.transcript);
    const lines = result.stderr.trim().split('\n');
    assert.deepEqual(lines, [
      `pay-checkout serve: ${file}: listen.port: expected an integer from 0 to 65535`,
      `pay-checkout serve: ${file}: origins[0]: expected an origin such as "https://shop.example" (no path)`,
      `pay-checkout serve: ${file}: colour: unknown key; expected only the keys schema/pay-checkout.schema.json names`,
    ]);
  });

  it('--check exits 1 for a missing secret key with a service, naming the variable and never a value', async () => {
    const file = await write('live.json', { service: { baseUrl: 'https://api.example' } });
    const missing = await runCli(['serve', '--config', file, '--check'], {
      cwd: folder,
      env: bareEnvironment(),
    });
    assert.equal(missing.code, 1, missing.transcript);
    assert.match(missing.stderr, /PAY_SECRET_KEY: expected the payments service's secret key/);
    const env = bareEnvironment({ PAY_SECRET_KEY: 'sk_test_abc', PAY_CHECKOUT_API_KEY: 'short-key' });
    const short = await runCli(['serve', '--config', file, '--check'], { cwd: folder, env });
    assert.equal(short.code, 1, short.transcript);
    assert.match(short.stderr, /PAY_CHECKOUT_API_KEY: expected at least 32 printable characters/);
    assert.ok(!short.stderr.includes('short-key') && !short.stderr.includes('sk_test_abc'));
  });

  it('exits 1 for a file that is not JSON, or a named file that is not there', async () => {
    const file = await write('broken.json', '{ "listen": ');
    const broken = await runCli(['serve', '--config', file, '--check'], {
      cwd: folder,
      env: bareEnvironment(),
    });
    assert.equal(broken.code, 1, broken.transcript);
    assert.match(broken.stderr, /\(the file\): expected JSON/);
    const absent = await runCli(['serve', '--config', join(folder, 'none.json')], { cwd: folder });
    assert.equal(absent.code, 1, absent.transcript);
    assert.match(absent.stderr, /cannot read it/);
  });

  it('exits 2 for an option it does not know, pointing to --help', async () => {
    const result = await runCli(['serve', '--port', '80'], { cwd: folder, env: bareEnvironment() });
    assert.equal(result.code, 2, result.transcript);
    assert.match(result.stderr, /See: pay-checkout serve --help/);
  });

  it('exits 1 saying it cannot listen when its port is taken', async () => {
    const taken = await startTestServe();
    try {
      const file = await write('taken.json', {
        listen: { port: taken.serve.port },
        journal: `sqlite:${join(folder, 'taken.db')}`,
      });
      const result = await runCli(['serve', '--config', file], { cwd: folder, env: bareEnvironment() });
      assert.equal(result.code, 1, result.transcript);
      assert.match(result.stderr, /pay-checkout serve: cannot listen: .*EADDRINUSE/);
    } finally {
      await taken.close();
    }
  });

  it('--help names its options and environment; pay-checkout --help names serve', async () => {
    const help = await runCli(['serve', '--help'], { cwd: folder });
    assert.equal(help.code, 0);
    for (const word of [
      '--config',
      '--check',
      'PAY_SECRET_KEY',
      'PAY_CHECKOUT_API_KEY',
      'PAY_LOOKUP_SECRET',
    ]) {
      assert.ok(help.stdout.includes(word), word);
    }
    const all = await runCli(['--help'], { cwd: folder });
    assert.match(all.stdout, /serve +run the checkout relay as its own server/);
  });

  it('on SIGTERM under traffic answers what is in flight, refuses new connections, and exits 0 with no 5xx', async (t) => {
    const file = await write('traffic.json', {
      listen: { port: 0 },
      journal: `sqlite:${join(folder, 'traffic.db')}`,
      catalogue: TEST_CATALOGUE,
      sandbox: { approveAfterMs: 3_600_000 },
    });
    const serve = await startServeCommand(['--config', file], { cwd: folder, env: bareEnvironment() });
    try {
      const summary = await checkShutdownUnderTraffic(serve.url, serve.process, /"event":"serve_closing"/, {
        path: '/checkout/orders',
        cart: { items: [{ sku: 'kente-tote', quantity: 1 }] },
      });
      t.diagnostic(summary);
      assert.match(serve.output(), /"event":"serve_stopped"/);
    } finally {
      await serve.stop('SIGKILL');
    }
    // No order lost: every order serve said it created is in the journal it closed.
    const created = [...serve.output().matchAll(/"event":"order_created","orderId":"(or_\w+)"/g)].map(
      (match) => match[1] as string,
    );
    assert.ok(created.length >= 10, `${created.length} orders created`);
    const journal = await openJournal(`sqlite:${join(folder, 'traffic.db')}`);
    try {
      const recorded = new Set((await journal.listRecent(10_000)).map((row) => row.orderId));
      assert.deepEqual(
        created.filter((orderId) => !recorded.has(orderId)),
        [],
      );
    } finally {
      await journal.close();
    }
  });
});
