/**
 * `npm run test:node`: the Node tests given, two files at a time (most of
 * them start real servers and processes, and wait on them), except the
 * `check-relay` suites, which run beside them in a process of their own. Those
 * drive a relay through its per-client and per-number limits and spend most of
 * their minutes waiting out its `Retry-After`, not computing; every file
 * starts its servers on free ports and works in temp folders of its own, so
 * neither run sees the other. The waiting suites' report is printed after the
 * rest's, whole, so the two never interleave.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const WAITING = /\/cli\/check-relay[^/]*\.test\.ts$/;

/** Runs the files in one `node --test` process, `concurrency` at a time; resolves with its exit code and, when `quiet`, what it printed. */
function runFiles(files, quiet, concurrency) {
  if (files.length === 0) return Promise.resolve({ code: 0, printed: '' });
  const child = spawn(process.execPath, [TSX, '--test', `--test-concurrency=${concurrency}`, ...files], {
    cwd: ROOT,
    stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'],
  });
  let printed = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk) => {
    printed += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk) => {
    printed += chunk;
  });
  return new Promise((resolve) => {
    child.once('error', () => resolve({ code: 1, printed }));
    child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), printed }));
  });
}

const files = process.argv.slice(2);
const [rest, waiting] = await Promise.all([
  runFiles(
    files.filter((file) => !WAITING.test(file)),
    false,
    2,
  ),
  runFiles(
    files.filter((file) => WAITING.test(file)),
    true,
    1,
  ),
]);
process.stdout.write(waiting.printed);
process.exit(rest.code !== 0 ? rest.code : waiting.code);
