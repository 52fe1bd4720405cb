/**
 * The package as a merchant's project gets it: `npm pack` of this repository,
 * then a project that installs the tarball the way `npm install pay-checkout`
 * would, with the project's other dependencies from the registry (or npm's
 * cache).
 */
import assert from 'node:assert/strict';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmChildEnvironment, runCommand } from './run-command.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** What `npm pack --json` says about one tarball. */
export interface PackReport {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/**
 * What scripts/test-package.mjs packed once for the whole suite: the JSON file
 * this variable names holds the tarball's path and npm's report of it.
 */
const PACKED_ENV = 'PAY_CHECKOUT_PACKED';

/**
 * Packs this repository (its `dist` as built) into `directory`; under `npm run
 * test:package`, copies there the tarball the suite packed once instead.
 */
export async function packRepository(directory: string): Promise<{ tarball: string; report: PackReport }> {
  const described = process.env[PACKED_ENV];
  if (described) {
    const packed = JSON.parse(await readFile(described, 'utf8')) as { tarball: string; report: PackReport };
    const tarball = join(directory, packed.report.filename);
    await copyFile(packed.tarball, tarball);
    return { tarball, report: packed.report };
  }
  const packed = await runCommand('npm', ['pack', '--json', '--pack-destination', directory], {
    cwd: repositoryRoot,
    env: npmChildEnvironment(),
  });
  assert.equal(packed.code, 0, packed.transcript);
  const [report] = JSON.parse(packed.stdout) as [PackReport];
  return { tarball: join(directory, report.filename), report };
}

/**
 * Makes the project at `project` depend on `tarball` for `pay-checkout`, in
 * place of the version its package.json names, and installs it.
 */
export async function installWithPackage(
  project: string,
  tarball: string,
  timeoutMs = 180_000,
): Promise<void> {
  const manifestPath = join(project, 'package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  manifest.dependencies = { ...manifest.dependencies, 'pay-checkout': `file:${tarball}` };
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const installed = await runCommand('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: project,
    env: npmChildEnvironment(),
    timeoutMs,
  });
  assert.equal(installed.code, 0, installed.transcript);
}
