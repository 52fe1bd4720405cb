/**
 * The package as a merchant installs it: `npm pack` of this repository, the
 * tarball every package test installs into its own temp project.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { npmChildEnvironment, runCommand } from './run-command.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Packs the built package into `directory`; resolves to the tarball's file name there. */
export async function packTarball(directory: string): Promise<string> {
  const packed = await runCommand('npm', ['pack', '--json', '--pack-destination', directory], {
    cwd: repositoryRoot,
    env: npmChildEnvironment(),
  });
  assert.equal(packed.code, 0, packed.transcript);
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  return filename;
}
