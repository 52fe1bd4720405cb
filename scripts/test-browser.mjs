/**
 * `npm run test:browser`: the browser suite in Chromium, Firefox and WebKit,
 * the engines side by side, then one line per engine with its counts and
 * time. Each engine spends most of its run waiting on the element's polls
 * (about a quarter of one core busy), so the three together take about as
 * long as the slowest alone. Each has its own test server on a port of its
 * own, its own browser process (WebKit on its own virtual screen), and its
 * output is printed whole once it ends, so reports never interleave. Exits 1
 * if any engine failed or could not run. `node scripts/test-browser.mjs
 * webkit` runs the engines named.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINES } from './browser-engines.mjs';
import { freePort } from './free-port.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNNER = join(ROOT, 'node_modules/@web/test-runner/dist/bin.js');

const engines = process.argv.length > 2 ? process.argv.slice(2) : ENGINES;
const unknown = engines.filter((engine) => !ENGINES.includes(engine));
if (unknown.length > 0) {
  console.error(`Unknown engine ${unknown.join(', ')}; the engines are ${ENGINES.join(', ')}.`);
  process.exit(2);
}

/** Runs the suite in `engine` on `port`; resolves to its exit code and what it printed. */
function runSuite(engine, port, resultsFile) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', RUNNER, '--config', 'web-test-runner.config.mjs', '--port', String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BROWSER_ENGINE: engine, BROWSER_SUITE_RESULTS: resultsFile },
    },
  );
  let printed = '';
  for (const stream of [child.stdout, child.stderr])
    stream.setEncoding('utf8').on('data', (chunk) => {
      printed += chunk;
    });
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: 1, printed: `${printed}${error.message}\n` }));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), printed }));
  });
}

const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-browser-suite-'));
const resultsFile = join(folder, 'results.jsonl');
const lines = [];
let failed = false;
try {
  const ports = [];
  for (const _ of engines) ports.push(await freePort());
  await Promise.all(
    engines.map(async (engine, index) => {
      const started = performance.now();
      const { code, printed } = await runSuite(engine, ports[index], resultsFile);
      const seconds = Math.round((performance.now() - started) / 1000);
      console.log(`\nBrowser suite in ${engine}\n\n${printed}`);
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
      lines[index] = recorded
        ? `${engine}: ${recorded.passed} passed, ${recorded.failed} failed, ${recorded.skipped} skipped in ${seconds} s` +
          (code === 0 ? '' : ` (exit ${code})`)
        : `${engine}: did not run (exit ${code}) after ${seconds} s`;
    }),
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}

console.log(`\nBrowser suite, per engine:\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
process.exit(failed ? 1 : 0);
