/**
 * `pay-checkout serve` from the packed tarball, in a folder with nothing
 * but the package installed: `npx pay-checkout serve --check` judges
 * pay-checkout.json with its exit codes and the field named, and serve (its
 * installed bin, as a supervisor runs it) starts on the defaults (a SQLite
 * journal through the libsql it brings along, the embedded sandbox), serves
 * the package's own embed with its integrity, takes a paid order, and stops
 * on SIGTERM with exit code 0.
 *
 * Needs `npm run build` first (the `test` script runs it).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CliLauncher, runCli } from '../fixtures/pay-checkout-cli.js';
import { payThroughServe, TEST_CATALOGUE } from '../fixtures/serve.js';
import { startServeCommand } from '../fixtures/serve-command.js';
import { installWithPackage, packRepository } from './packed-package.js';
import { npmChildEnvironment } from './run-command.js';

const SCHEMA = './node_modules/pay-checkout/schema/pay-checkout.schema.json';

describe('pay-checkout serve, from the installed package', { timeout: 240_000 }, () => {
  let workDirectory: string;
  let project: string;
  const npx: CliLauncher = ['npx', '--no', '--', 'pay-checkout'];
  const env = () => {
    const {
      PAY_SECRET_KEY: _a,
      PAY_CHECKOUT_API_KEY: _b,
      PAY_LOOKUP_SECRET: _c,
      ...rest
    } = npmChildEnvironment();
    return rest;
  };

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-serve-package-'));
    project = join(workDirectory, 'shop-relay');
    const { tarball } = await packRepository(workDirectory);
    await mkdir(project);
    const manifest = { name: 'shop-relay', private: true };
    await writeFile(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await installWithPackage(project, tarball, 150_000);
  });

  after(async () => {
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  const writeConfig = (config: unknown) =>
    writeFile(join(project, 'pay-checkout.json'), `${JSON.stringify(config, null, 2)}\n`);

  it('ships the JSON Schema a configuration names', () => {
    assert.ok(existsSync(join(project, SCHEMA)), SCHEMA);
  });

  it('--check exits 1 naming the field, and 0 once the file is right', async () => {
    await writeConfig({ $schema: SCHEMA, listen: { port: 'eighty' }, catalogue: TEST_CATALOGUE });
    const refused = await runCli(['serve', '--check'], { launcher: npx, cwd: project, env: env() });
    assert.equal(refused.code, 1, refused.transcript);
    assert.equal(
      refused.stderr.trim(),
      'pay-checkout serve: pay-checkout.json: listen.port: expected an integer from 0 to 65535',
    );
    await writeConfig({ $schema: SCHEMA, listen: { port: 0 }, catalogue: TEST_CATALOGUE });
    const accepted = await runCli(['serve', '--check'], { launcher: npx, cwd: project, env: env() });
    assert.equal(accepted.code, 0, accepted.transcript);
  });

  it('--check names the driver a PostgreSQL journal or a Redis needs, and the command that installs it', async () => {
    await writeConfig({ journal: 'postgres://relay@127.0.0.1:5432/relay', redis: 'redis://127.0.0.1:6379' });
    const refused = await runCli(['serve', '--check'], { launcher: npx, cwd: project, env: env() });
    assert.equal(refused.code, 1, refused.transcript);
    assert.deepEqual(refused.stderr.trim().split('\n'), [
      'pay-checkout serve: pay-checkout.json: journal: the postgres: journal needs the pg package: npm install pg',
      'pay-checkout serve: pay-checkout.json: redis: a Redis for the rate limits needs the redis package: npm install redis',
    ]);
  });

  it('serves the package’s embed, takes a paid order into its SQLite journal, and stops on SIGTERM', async () => {
    await writeConfig({ $schema: SCHEMA, listen: { port: 0 }, catalogue: TEST_CATALOGUE });
    // The installed bin, as a supervisor runs it: npx would stand between the signal and serve.
    const bin: CliLauncher = [join(project, 'node_modules', '.bin', 'pay-checkout')];
    const serve = await startServeCommand([], { launcher: bin, cwd: project, env: env() });
    try {
      assert.match(serve.output(), /NO REAL MONEY MOVES/);
      const embedFile = await readFile(join(project, 'node_modules/pay-checkout/dist/pay-checkout.embed.js'));
      const integrity = `sha384-${createHash('sha384').update(embedFile).digest('base64')}`;
      assert.deepEqual(serve.started.embed, { path: '/pay-checkout.embed.js', integrity });
      const embed = await fetch(`${serve.url}/pay-checkout.embed.js`);
      assert.equal(embed.headers.get('integrity'), integrity);
      assert.ok(Buffer.from(await embed.arrayBuffer()).equals(embedFile));
      const paid = await payThroughServe(serve.url, '0245550001');
      assert.equal(paid.lookup.status, 200, JSON.stringify(paid.lookup.body));
      assert.equal((await fetch(`${serve.url}/readyz`)).status, 200);
      assert.ok(existsSync(join(project, '.data/pay-checkout.db')), 'the default journal file');
    } finally {
      assert.equal(await serve.stop('SIGTERM'), 0, serve.output());
    }
    assert.match(serve.output(), /"event":"serve_stopped"/);
  });

  it('npx pay-checkout serve starts, and stops cleanly when Ctrl-C or SIGTERM reaches its process group', async () => {
    await writeConfig({ $schema: SCHEMA, listen: { port: 0 } });
    const serve = await startServeCommand([], { launcher: npx, cwd: project, env: env(), group: true });
    assert.equal((await fetch(`${serve.url}/healthz`)).status, 200);
    // npx re-raises the signal on itself once serve has exited: its own exit code says nothing of serve's.
    await serve.stop('SIGINT');
    assert.match(serve.output(), /"event":"serve_stopped"/);
  });
});
