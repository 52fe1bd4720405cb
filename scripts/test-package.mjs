/**
 * `npm run test:package`: packs the package once (`npm pack` of the built
 * `dist`), then runs the package test files given, each installing that same
 * tarball into its projects. Packing once instead of once per file saves a
 * pack of the whole repository per file; a file run alone (`npx tsx --test
 * test/package/cli.test.ts`) packs for itself (test/package/packed-package.ts).
 *
 * Two files run at a time: they spend most of their time waiting (on npm's
 * installs, on the processes they start, on a watcher's real-time grace)
 * rather than computing, and each works in a temp folder of its own with
 * servers on free ports, so neither sees the other.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
/** Where the package test files find the packed tarball (and what npm said of it). */
const PACKED_ENV = 'PAY_CHECKOUT_PACKED';

/** Runs `command` in the repository; resolves with its exit code and what it printed on stdout. */
function run(command, args, env, stdout) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', stdout, 'inherit'] });
  let printed = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk) => {
    printed += chunk;
  });
  return new Promise((resolve) => {
    child.once('error', () => resolve({ code: 1, printed }));
    child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), printed }));
  });
}

/** The environment of `npm pack`: without what an outer `npm run` says about this package's own script. */
function npmEnvironment() {
  const leaking =
    /^npm_(package_|lifecycle_|config_(local_prefix|prefix|global_prefix|workspaces?|dry_run)$)/;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !leaking.test(name)));
}

const files = process.argv.slice(2);
const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-packed-'));
let code = 1;
try {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', folder], npmEnvironment(), 'pipe');
  if (packed.code !== 0) {
    console.error(`npm pack exited ${packed.code}:\n${packed.printed}`);
  } else {
    const [report] = JSON.parse(packed.printed);
    const described = join(folder, 'pack.json');
    writeFileSync(described, JSON.stringify({ tarball: join(folder, report.filename), report }));
    ({ code } = await run(
      process.execPath,
      [TSX, '--test', '--test-concurrency=2', ...files],
      { ...process.env, [PACKED_ENV]: described },
      'inherit',
    ));
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
process.exit(code);
