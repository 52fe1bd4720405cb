/**
 * `npm ci` installs this project from a fresh clone on any platform: the
 * lockfile has an entry for every optional dependency (each platform's build
 * of biome, rollup, esbuild…), which `npm ci` asks for and refuses the
 * lockfile without (npm/cli#9846). npm drops such entries when the registry
 * cannot serve that version; `node scripts/lockfile-platforms.mjs --write`
 * puts them back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  completeLockfile,
  type Lockfile,
  lockEntry,
  missingOptionalEntries,
  platformFromName,
} from '../../scripts/lockfile-platforms.mjs';

const LOCK: Lockfile = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'));

function lockWithout(...locations: string[]): Lockfile {
  const copy: Lockfile = structuredClone(LOCK);
  for (const location of locations) {
    assert.ok(copy.packages[location], `${location} is in the lockfile`);
    delete copy.packages[location];
  }
  return copy;
}

/** What --write does, with the platform read from the name instead of asked of the registry. */
function entryFromName({ name, spec }: { name: string; spec: string }, parent: { dev?: boolean }) {
  const platform = platformFromName(name);
  assert.ok(platform, name);
  return { entry: lockEntry({ version: spec, platform, dev: parent.dev }), source: 'its name' };
}

describe('package-lock.json', () => {
  it('has an entry for every optional dependency, so npm ci accepts it on every platform', () => {
    const missing = missingOptionalEntries(LOCK).map(({ name, spec }) => `${name}@${spec}`);
    assert.deepEqual(missing, [], 'run `node scripts/lockfile-platforms.mjs --write`');
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

  it('is made whole again, each entry where npm would put it, in npm order', () => {
    const nested = 'node_modules/tsx/node_modules/@esbuild/darwin-arm64';
    const biome = 'node_modules/@biomejs/cli-darwin-arm64';
    const broken = lockWithout(nested, biome, 'node_modules/@biomejs/cli-linux-x64-musl');
    const added = completeLockfile(broken, entryFromName);
    assert.equal(added.length, 3);
    assert.deepEqual(missingOptionalEntries(broken), []);
    assert.deepEqual(Object.keys(broken.packages), Object.keys(LOCK.packages));
    assert.deepEqual(broken.packages[biome], LOCK.packages[biome]);
    assert.deepEqual(broken.packages[nested], {
      version: LOCK.packages[nested]?.version,
      cpu: ['arm64'],
      dev: true,
      optional: true,
      os: ['darwin'],
    });
  });
});

describe('platformFromName', () => {
  it('reads the platform npm recorded for every platform build in the lockfile', () => {
    let compared = 0;
    for (const [location, entry] of Object.entries(LOCK.packages)) {
      const name = location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
      const platform = platformFromName(name);
      if (!platform || entry.os?.length !== 1 || entry.cpu?.length !== 1) continue;
      assert.deepEqual({ os: platform.os, cpu: platform.cpu }, { os: entry.os, cpu: entry.cpu }, location);
      // A name says musl or gnu, or nothing: biome's glibc builds are named cli-linux-x64.
      if (platform.libc) assert.deepEqual(platform.libc, entry.libc ?? platform.libc, location);
      compared += 1;
    }
    assert.ok(compared > 100, `${compared} entries compared`);
  });

  it('tells musl from glibc builds and names no platform for other packages', () => {
    assert.deepEqual(platformFromName('@biomejs/cli-linux-x64-musl'), {
      os: ['linux'],
      cpu: ['x64'],
      libc: ['musl'],
    });
    assert.deepEqual(platformFromName('@rollup/rollup-linux-arm-gnueabihf'), {
      os: ['linux'],
      cpu: ['arm'],
      libc: ['glibc'],
    });
    assert.deepEqual(platformFromName('@biomejs/cli-win32-arm64'), { os: ['win32'], cpu: ['arm64'] });
    assert.equal(platformFromName('lit'), undefined);
    assert.equal(platformFromName('fsevents'), undefined);
  });
});
