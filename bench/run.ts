/**
 * `npm run bench`: runs every `bench/*.bench.ts`, one after the other, each in
 * its own Node process (so one benchmark's heap and timers never weigh on the
 * next). A benchmark adds itself by being a file here.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const directory = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = (await readdir(directory))
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((wanted) => name.includes(wanted)))
  .sort();

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${directory}${file}`], { stdio: 'inherit' });
    child.once('exit', resolve);
  });
  if (code !== 0) {
    failed++;
    process.stdout.write(`${file} failed (exit code ${code}).\n`);
  }
}
process.stdout.write(`\n${files.length - failed} of ${files.length} benchmarks ran.\n`);
process.exitCode = failed === 0 ? 0 : 1;
