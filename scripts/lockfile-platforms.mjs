/**
 * Keeps package-lock.json installable by `npm ci` on every platform.
 *
 * Biome, rollup, esbuild and others ship their native binary as one optional
 * package per platform. `npm install` leaves out of the lockfile every such
 * package whose version the registry it asked could not serve (a mirror that
 * lags behind has some platforms' builds of a release and not others), and
 * `npm ci` then refuses the lockfile as out of sync ("Missing:
 * @biomejs/cli-darwin-arm64@ from lock file", npm/cli#9846) on every
 * platform, even the one it was written on. The cure is a version of the tool
 * whose every build the registry serves (package.json pins biome, and
 * `overrides` pins rollup, for that reason).
 *
 * `node scripts/lockfile-platforms.mjs` lists the optional dependencies that
 * have no entry, and exits 1 when there is one.
 */
import { readFileSync } from 'node:fs';
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = missingOptionalEntries(JSON.parse(readFileSync(LOCKFILE, 'utf8')));
  for (const { from, name, spec } of missing) console.error(`missing ${name}@${spec} (optional for ${from})`);
  if (missing.length > 0) {
    console.error(
      'npm ci will refuse this lockfile: pin each tool above to a version the registry has every build of, then npm install',
    );
    process.exit(1);
  }
  console.log('package-lock.json has an entry for every optional dependency');
}
