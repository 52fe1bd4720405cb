/** Types of scripts/lockfile-platforms.mjs, for the test that keeps package-lock.json installable by `npm ci`. */

/** One lockfile package entry, as far as these checks read it. */
export interface LockEntry {
  version?: string;
  integrity?: string;
  cpu?: string[];
  dev?: boolean;
  libc?: string[];
  optional?: boolean;
  os?: string[];
  link?: boolean;
  optionalDependencies?: Record<string, string>;
}

/** A package-lock.json (lockfileVersion 3), as far as these checks read it. */
export interface Lockfile {
  packages: Record<string, LockEntry>;
}

/** An optional dependency `npm ci` would look for and not find: `name@spec`, declared by the entry at `from`. */
export interface MissingEntry {
  from: string;
  name: string;
  spec: string;
}

/** The platform fields of a package entry. */
export interface Platform {
  os?: string[];
  cpu?: string[];
  libc?: string[];
}

/** Each optional dependency with no entry where Node would load it from, or an entry of another exact version. */
export declare function missingOptionalEntries(lock: Lockfile): MissingEntry[];

/** The platform a package is for, read from its name; undefined when the name names none. */
export declare function platformFromName(name: string): Platform | undefined;

/** The entry npm would write for `version` of a platform package, in npm's own key order. */
export declare function lockEntry(fields: {
  version: string;
  integrity?: string | undefined;
  platform: Platform;
  dev?: boolean | undefined;
}): LockEntry;

/**
 * Adds an entry for each missing optional dependency, where npm would put it; returns a line for each.
 * `findEntry` makes the entry (by default from the registry, with `npm view`).
 */
export declare function completeLockfile(
  lock: Lockfile,
  findEntry?: (missing: MissingEntry, parent: LockEntry) => { entry: LockEntry; source: string },
): string[];
