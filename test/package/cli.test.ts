/**
 * `pay-checkout`'s command from the packed tarball, installed as a merchant
 * whose server is in another language would: `npx pay-checkout sandbox`
 * serves the service in test mode and stops on SIGTERM, `npx pay-checkout
 * check-relay` judges a relay over real HTTP, and `pay-checkout/openapi.json`
 * resolves to the document of the wire.
 *
 * Needs `npm run build` first (the `test` script runs it). The install
 * reaches the npm registry only for what the local cache lacks.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../fixtures/free-port.js';
import {
  type CliLauncher,
  createOrderOn,
  idsMarked,
  runCli,
  startSandboxCommand,
} from '../fixtures/pay-checkout-cli.js';
import {
  CHECK_CART_WITH_REFERENCE,
  NO_CLIENT_LIMIT,
  serveRelayUnderCheck,
  withJournal,
} from '../fixtures/relay-under-check.js';
import { installWithPackage, packRepository } from './packed-package.js';
import { npmChildEnvironment, runCommand } from './run-command.js';

describe('pay-checkout, the command of the installed package', { timeout: 240_000 }, () => {
  let workDirectory: string;
  let project: string;
  let npx: CliLauncher;
  let installedBin: CliLauncher;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-cli-'));
    project = join(workDirectory, 'merchant');
    const { tarball } = await packRepository(workDirectory);
    await mkdir(project);
    const manifest = { name: 'merchant-tools', private: true, type: 'module' };
    await writeFile(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await installWithPackage(project, tarball, 150_000);
    // `--no`: never fetch a package called pay-checkout from the registry; the installed bin or nothing.
    // After it, `--` keeps npx from reading the command's own options (`--help`) as its own.
    npx = ['npx', '--no', '--', 'pay-checkout'];
    installedBin = [join(project, 'node_modules', '.bin', 'pay-checkout')];
  });

  after(async () => {
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('npx pay-checkout --help names both commands', async () => {
    const result = await runCli(['--help'], { launcher: npx, cwd: project, env: npmChildEnvironment() });
    assert.equal(result.code, 0, result.transcript);
    assert.match(result.stdout, /sandbox +run the payments service in test mode/);
    assert.match(result.stdout, /check-relay <base-url>/);
  });

  it('pay-checkout sandbox --port N answers a create with sk_test_sandbox and stops on SIGTERM', async () => {
    const port = await freePort();
    const sandbox = await startSandboxCommand(['--port', String(port)], {
      launcher: installedBin,
      cwd: project,
    });
    try {
      assert.equal(sandbox.url, `http://127.0.0.1:${port}`);
      const { status, order } = await createOrderOn(sandbox.url);
      assert.equal(status, 200);
      assert.match(order?.id ?? '', /^or_/);
    } finally {
      assert.equal(await sandbox.stop('SIGTERM'), 0, sandbox.output());
    }
  });

  it('npx pay-checkout check-relay reports full conformance of our relay and exits 0', async () => {
    const relay = await serveRelayUnderCheck(await withJournal({ rateLimit: NO_CLIENT_LIMIT }));
    try {
      const args = [
        'check-relay',
        relay.url,
        '--cart',
        CHECK_CART_WITH_REFERENCE,
        '--sandbox',
        relay.sandboxUrl,
      ];
      const result = await runCli(args, { launcher: npx, cwd: project, env: npmChildEnvironment() });
      assert.equal(result.code, 0, result.transcript);
      assert.equal(idsMarked(result.stdout, 'pass').length, 21, result.transcript);
      assert.match(result.stdout, /21 of 21 checks conform\./);
    } finally {
      await relay.close();
    }
  });

  it('pay-checkout/openapi.json resolves to the OpenAPI 3.1 document of the relay wire', async () => {
    const script = `const { default: doc } = await import('pay-checkout/openapi.json', { with: { type: 'json' } });
console.log(doc.openapi, Object.keys(doc.paths).join(' '));`;
    const result = await runCommand(
      process.execPath,
      ['--input-type=module', '--no-warnings', '-e', script],
      {
        cwd: project,
      },
    );
    assert.equal(result.code, 0, result.transcript);
    assert.equal(result.stdout.trim(), '3.1.0 /orders /lookup /price /checkouts/{client_secret}');
  });
});
