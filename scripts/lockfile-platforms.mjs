/**
 * Keeps package-lock.json installable by `npm ci` on every platform.
 *
 * Biome, rollup, esbuild and others ship their native binary as one optional
 * package per platform. `npm install` leaves out of the lockfile every such
 * package whose version the registry it asked could not serve (and, with a
 * node_modules present, sometimes those of other platforms: npm/cli#4828).
 * `npm ci` then asks for each one and refuses the lockfile as out of sync
 * ("Missing: @biomejs/cli-darwin-arm64@ from lock file", npm/cli#9846), on
 * every platform, even the one the lockfile was written on.
 *
 * `node scripts/lockfile-platforms.mjs` lists the optional dependencies that
 * have no entry (exit 1 when there is one); `--write` adds the entries,
 * taking the platform fields (and the integrity, when the registry has that
 * version) from the registry. npm keeps such entries on later installs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const LOCKFILE = fileURLToPath(new URL('../package-lock.json', import.meta.url));
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Where Node looks for `name` required by the package at `from`, nearest first: the lockfile locations. */
function lookupLocations(from, name) {
  const locations = [];
  let folder = from;
  for (;;) {
    locations.push(`${folder ? `${folder}/` : ''}node_modules/${name}`);
    if (!folder) return locations;
    const parent = folder.lastIndexOf('/node_modules/');
    folder = parent === -1 ? '' : folder.slice(0, parent);
  }
}

/** The lockfile location Node would load `name` from when required by the package at `from`. */
function resolveLocation(packages, from, name) {
  return lookupLocations(from, name).find((location) => packages[location]);
}

/** Where npm would add `name` for `from`: as high as it can go without another version in the way. */
function placeLocation(packages, from, name) {
  const locations = lookupLocations(from, name);
  const taken = locations.findIndex((location) => packages[location]);
  return taken === -1 ? locations.at(-1) : locations[taken - 1];
}

/**
 * Each optional dependency in the lockfile that `npm ci` would look for and not find:
 * no entry where Node would load it from, or (for an exact version) an entry of another version.
 */
export function missingOptionalEntries(lock) {
  const packages = lock.packages ?? {};
  const missing = [];
  for (const [from, entry] of Object.entries(packages)) {
    if (entry.link) continue;
    for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
      const found = resolveLocation(packages, from, name);
      const wrongVersion = found && EXACT_VERSION.test(spec) && packages[found].version !== spec;
      if (!found || wrongVersion) missing.push({ from, name, spec });
    }
  }
  return missing;
}

const OS_WORDS = [
  'aix',
  'android',
  'darwin',
  'freebsd',
  'linux',
  'netbsd',
  'openbsd',
  'openharmony',
  'sunos',
  'win32',
];
const CPU_WORDS = [
  'arm',
  'arm64',
  'ia32',
  'loong64',
  'mips64el',
  'ppc64',
  'riscv64',
  's390x',
  'wasm32',
  'x64',
];

/**
 * The platform a package is for, read from its name (`@biomejs/cli-linux-x64-musl`): only for a
 * package the registry has no version of at all, so nothing else says it.
 */
export function platformFromName(name) {
  const words = name.slice(name.lastIndexOf('/') + 1).split('-');
  const os = words.find((word) => OS_WORDS.includes(word));
  const cpu = words.find((word) => CPU_WORDS.includes(word));
  if (!os || !cpu) return undefined;
  const platform = { os: [os], cpu: [cpu] };
  if (os === 'linux' && words.some((word) => word.startsWith('musl'))) platform.libc = ['musl'];
  else if (os === 'linux' && words.some((word) => word.startsWith('gnu'))) platform.libc = ['glibc'];
  return platform;
}

/** The entry npm would write for `version` of a platform package, in npm's own key order. */
export function lockEntry({ version, integrity, platform, dev }) {
  const entry = { version };
  if (integrity) entry.integrity = integrity;
  if (platform.cpu) entry.cpu = platform.cpu;
  if (dev) entry.dev = true;
  if (platform.libc) entry.libc = platform.libc;
  entry.optional = true;
  if (platform.os) entry.os = platform.os;
  return entry;
}

/** `npm view <spec> --json`'s manifest (the last, when several versions match), or undefined on a 404. */
function registryManifest(spec) {
  try {
    const manifest = JSON.parse(
      execFileSync('npm', ['view', spec, '--json'], { encoding: 'utf8', stdio: 'pipe' }) || 'null',
    );
    return Array.isArray(manifest) ? manifest.at(-1) : (manifest ?? undefined);
  } catch (error) {
    if (/E404/.test(`${error.stdout}${error.stderr}`)) return undefined;
    throw error;
  }
}

function platformOf(manifest) {
  return { os: manifest.os, cpu: manifest.cpu, libc: manifest.libc };
}

/** The entry to add for one missing optional dependency, and a line saying where it came from. */
function entryFor({ name, spec }, parent) {
  const exact = registryManifest(`${name}@${spec}`);
  if (exact) {
    const platform = platformOf(exact);
    const entry = lockEntry({
      version: exact.version,
      integrity: exact.dist?.integrity,
      platform,
      dev: parent.dev,
    });
    return { entry, source: 'the registry' };
  }
  if (!EXACT_VERSION.test(spec))
    throw new Error(`${name}@${spec}: the registry has no version in that range`);
  // The registry here lacks this version (other platforms' builds are often missing from a
  // mirror): its other versions, or failing those its name, say which platform it is for.
  const latest = registryManifest(name);
  const platform = latest ? platformOf(latest) : platformFromName(name);
  if (!platform)
    throw new Error(`${name}@${spec}: neither the registry nor the name says which platform it is for`);
  const entry = lockEntry({ version: spec, platform, dev: parent.dev });
  return {
    entry,
    source: latest ? `${name}@${latest.version}'s platform, no integrity` : 'its name, no integrity',
  };
}

/** Adds an entry for each missing optional dependency, where npm would put it; returns what it added. */
export function completeLockfile(lock, findEntry = entryFor) {
  const added = [];
  for (const missing of missingOptionalEntries(lock)) {
    // An entry added for an earlier parent may serve this one too.
    const found = resolveLocation(lock.packages, missing.from, missing.name);
    if (found && lock.packages[found].version === missing.spec) continue;
    const location = placeLocation(lock.packages, missing.from, missing.name);
    if (!location) throw new Error(`${missing.name}: another version holds its place for ${missing.from}`);
    const { entry, source } = findEntry(missing, lock.packages[missing.from]);
    lock.packages[location] = entry;
    added.push(`${location} ${entry.version} (${source})`);
  }
  const [root, ...rest] = Object.entries(lock.packages);
  rest.sort(([a], [b]) => a.localeCompare(b, 'en'));
  lock.packages = Object.fromEntries([root, ...rest]);
  return added;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lock = JSON.parse(readFileSync(LOCKFILE, 'utf8'));
  if (process.argv.includes('--write')) {
    const added = completeLockfile(lock);
    if (added.length > 0) writeFileSync(LOCKFILE, `${JSON.stringify(lock, null, 2)}\n`);
    for (const line of added) console.log(`added ${line}`);
    console.log(`package-lock.json: ${added.length} platform package entries added`);
  } else {
    const missing = missingOptionalEntries(lock);
    for (const { from, name, spec } of missing)
      console.error(`missing ${name}@${spec} (optional for ${from})`);
    if (missing.length > 0) {
      console.error('npm ci will refuse this lockfile: run `node scripts/lockfile-platforms.mjs --write`');
      process.exit(1);
    }
    console.log('package-lock.json has an entry for every optional dependency');
  }
}
