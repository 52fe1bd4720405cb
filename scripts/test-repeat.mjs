/**
 * `npm run test:repeat [-- RUNS] [--busy]`: runs the browser and end-to-end
 * suites RUNS times in a row (default 10) and prints how many runs of each
 * passed. With `--busy`, a second process keeps one core busy all along, as
 * a loaded CI machine would: a suite that passes only on an idle machine is
 * flaky, and this is where it shows. Exits 1 when any run failed.
 */
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 10);
const busy = args.includes('--busy');
const suites = ['test:browser', 'test:e2e'];

/** Runs one npm script with its output shown; resolves with its exit code. */
function runScript(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: 'inherit' });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const load = busy ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }) : undefined;
const passed = Object.fromEntries(suites.map((suite) => [suite, 0]));
try {
  for (let run = 1; run <= runs; run++) {
    for (const suite of suites) {
      process.stdout.write(`\n== run ${run} of ${runs}: ${suite}${busy ? ' (one core kept busy)' : ''}\n`);
      if ((await runScript(suite)) === 0) passed[suite]++;
    }
  }
} finally {
  load?.kill();
}

process.stdout.write('\n');
for (const suite of suites) process.stdout.write(`${suite}: ${passed[suite]} of ${runs} runs passed\n`);
const failedRuns = suites.reduce((sum, suite) => sum + runs - passed[suite], 0);
process.stdout.write(`${runs * suites.length - failedRuns} passed, ${failedRuns} failed\n`);
process.exitCode = failedRuns === 0 ? 0 : 1;
