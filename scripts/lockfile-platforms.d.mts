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

/** Each optional dependency with no entry where Node would load it from, or an entry of another exact version. */
export declare function missingOptionalEntries(lock: Lockfile): MissingEntry[];
