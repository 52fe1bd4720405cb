/**
 * The serve page (docs/serve.md) holds to what serve does: its commands run,
 * its bad configuration gets exactly the lines it shows, its example
 * configurations pass the check, and its sample log has the fields a real
 * run writes for each event.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkServeConfig } from '../../../src/serve/serve-config.js';
import { blockAfter, readPage, repositoryRoot } from '../../fixtures/doc-blocks.js';
import { runCli } from '../../fixtures/pay-checkout-cli.js';
import { payThroughServe, startTestServe, TEST_CATALOGUE } from '../../fixtures/serve.js';
import { SOURCE_CLI_ANYWHERE } from '../../fixtures/serve-command.js';

const PAGE = readPage('docs/serve.md');
const EXAMPLES = ['examples/serve/pay-checkout.json', 'examples/serve/fleet.json'];

/** The page's block after `<!-- MARKER …-->`, which must be there. */
function block(marker: string): string {
  const code = blockAfter(PAGE, marker);
  assert.ok(code !== undefined, `docs/serve.md has a block after <!-- ${marker}`);
  return code;
}

/** An environment with only the secrets given. */
function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { PAY_SECRET_KEY: _a, PAY_CHECKOUT_API_KEY: _b, PAY_LOOKUP_SECRET: _c, ...env } = process.env;
  return { ...env, ...extra };
}

describe('docs/serve.md', { timeout: 120_000 }, () => {
  let folder: string;

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'pay-checkout-serve-docs-'));
    await copyFile(join(repositoryRoot, EXAMPLES[0] as string), join(folder, 'pay-checkout.json'));
    await copyFile(join(repositoryRoot, EXAMPLES[1] as string), join(folder, 'fleet.json'));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  it('shows example configurations that pass the check', () => {
    for (const path of EXAMPLES) {
      const checked = checkServeConfig(JSON.parse(readPage(path)));
      assert.ok(checked.ok, `${path}: ${checked.ok ? '' : checked.errors.join('; ')}`);
    }
  });

  it('shows commands that run: each, with --check, exits 0 on the example files', async () => {
    const lines = block('serve-cli: commands ').trim().split('\n');
    assert.ok(lines.length >= 2);
    for (const line of lines) {
      const [npx, command, ...args] = line.split(' ');
      assert.deepEqual([npx, command], ['npx', 'pay-checkout'], line);
      const checked = args.includes('--check') ? args : [...args, '--check'];
      const env = environment({ PAY_SECRET_KEY: 'sk_live_docs', PAY_CHECKOUT_API_KEY: 'k'.repeat(40) });
      const result = await runCli(checked, { launcher: SOURCE_CLI_ANYWHERE, cwd: folder, env });
      assert.equal(result.code, 0, `${line}\n${result.transcript}`);
    }
  });

  it('shows the very lines --check prints for its bad configuration', async () => {
    const bad = join(folder, 'bad');
    await mkdir(bad);
    await writeFile(join(bad, 'pay-checkout.json'), block('serve-cli: bad configuration '));
    const result = await runCli(['serve', '--check'], {
      launcher: SOURCE_CLI_ANYWHERE,
      cwd: bad,
      env: environment(),
    });
    assert.equal(result.code, 1, result.transcript);
    assert.equal(result.stderr, block('serve-cli: check output '));
  });

  it('shows log lines with the fields a real run writes for each event', async () => {
    const running = await startTestServe({ catalogue: TEST_CATALOGUE, origins: ['https://shop.example'] });
    try {
      await payThroughServe(running.serve.url, '0246660001');
      await running.serve.relay.fulfilment?.tick();
    } finally {
      await running.close();
    }
    const real = running.logLines();
    const shape = (line: Record<string, unknown>) => ({
      level: line.level,
      keys: Object.keys(line).sort(),
      embed: line.embed && Object.keys(line.embed as object).sort(),
    });
    for (const text of block('serve-log: sample ').trim().split('\n')) {
      const shown = JSON.parse(text) as Record<string, unknown>;
      const written = real.find((line) => line.event === shown.event);
      assert.ok(written, `a real run writes ${String(shown.event)}`);
      assert.deepEqual(shape(shown), shape(written), String(shown.event));
    }
  });
});
