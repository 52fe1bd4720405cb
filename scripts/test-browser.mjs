/**
 * `npm run test:browser`: the browser suite in Chromium, Firefox and WebKit,
 * one engine after the other (the runs share two cores, and each has its own
 * test server), then one line per engine with its counts and time. Exits 1
 * if any engine failed or could not run. `node scripts/test-browser.mjs
 * webkit` runs the engines named.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINES } from './browser-engines.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNNER = join(ROOT, 'node_modules/@web/test-runner/dist/bin.js');

const engines = process.argv.length > 2 ? process.argv.slice(2) : ENGINES;
const unknown = engines.filter((engine) => !ENGINES.includes(engine));
if (unknown.length > 0) {
  console.error(`Unknown engine ${unknown.join(', ')}; the engines are ${ENGINES.join(', ')}.`);
  process.exit(2);
}

/** Runs the suite in `engine`; resolves to its exit code. */
function runSuite(engine, resultsFile) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', RUNNER, '--config', 'web-test-runner.config.mjs'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, BROWSER_ENGINE: engine, BROWSER_SUITE_RESULTS: resultsFile },
    },
  );
  return new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-browser-suite-'));
const resultsFile = join(folder, 'results.jsonl');
const lines = [];
let failed = false;
try {
  for (const engine of engines) {
    console.log(`\nBrowser suite in ${engine}\n`);
    const started = performance.now();
    const code = await runSuite(engine, resultsFile);
    const seconds = Math.round((performance.now() - started) / 1000);
    let recorded;
    try {
      recorded = readFileSync(resultsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .findLast((result) => result.engine === engine);
    } catch {
      recorded = undefined;
    }
    if (code !== 0 || !recorded || recorded.failed > 0) failed = true;
    lines.push(
      recorded
        ? `${engine}: ${recorded.passed} passed, ${recorded.failed} failed, ${recorded.skipped} skipped in ${seconds} s` +
            (code === 0 ? '' : ` (exit ${code})`)
        : `${engine}: did not run (exit ${code}) after ${seconds} s`,
    );
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}

console.log(`\nBrowser suite, per engine:\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
process.exit(failed ? 1 : 0);
