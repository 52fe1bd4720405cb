/**
 * `npm ci` installs this project from a fresh clone on any platform: the
 * lockfile has an entry for every optional dependency (each platform's build
 * of biome, rollup, esbuild…), which `npm ci` asks for and refuses the
 * lockfile without (npm/cli#9846). npm drops such entries when the registry
 * cannot serve that version of a build.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type Lockfile, missingOptionalEntries } from '../../../scripts/lockfile-platforms.mjs';

const LOCK: Lockfile = JSON.parse(
  readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8'),
);

function lockWithout(...locations: string[]): Lockfile {
  const copy: Lockfile = structuredClone(LOCK);
  for (const location of locations) {
    assert.ok(copy.packages[location], `${location} is in the lockfile`);
    delete copy.packages[location];
  }
  return copy;
}

describe('package-lock.json', () => {
  it('has an entry for every optional dependency, so npm ci accepts it on every platform', () => {
    const missing = missingOptionalEntries(LOCK).map(({ name, spec }) => `${name}@${spec}`);
    assert.deepEqual(missing, [], 'pin the tool to a version the registry has every build of');
  });

  it('is seen as incomplete when one platform build is left out', () => {
    const rollup = LOCK.packages['node_modules/rollup'];
    assert.deepEqual(missingOptionalEntries(lockWithout('node_modules/@rollup/rollup-win32-x64-msvc')), [
      { from: 'node_modules/rollup', name: '@rollup/rollup-win32-x64-msvc', spec: rollup?.version },
    ]);
  });

  it("is seen as incomplete when a nested tool's build is only there in another version, higher up", () => {
    const nested = 'node_modules/tsx/node_modules/@esbuild/darwin-arm64';
    const hoisted = LOCK.packages['node_modules/@esbuild/darwin-arm64'];
    const nestedVersion = LOCK.packages[nested]?.version;
    assert.ok(hoisted && nestedVersion && hoisted.version !== nestedVersion, 'tsx has its own esbuild');
    const missing = missingOptionalEntries(lockWithout(nested));
    assert.deepEqual(missing, [
      { from: 'node_modules/tsx/node_modules/esbuild', name: '@esbuild/darwin-arm64', spec: nestedVersion },
    ]);
  });
});
