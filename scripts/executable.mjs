/**
 * Finding the programs the browser and end-to-end tests drive: an explicit
 * path from the environment wins, and one that is not an executable file is
 * an error rather than a quiet fall back to another program.
 */
import { accessSync, constants } from 'node:fs';

/** Whether `path` is a file this process may run. */
export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path in environment variable `name`, when set; throws when it is set to no executable file. */
export function explicitExecutable(name) {
  const explicit = process.env[name];
  if (!explicit) return undefined;
  if (isExecutable(explicit)) return explicit;
  throw new Error(`${name} is set to ${explicit}, which is not an executable file.`);
}

/** When `moduleUrl` is the script node runs: prints what `find()` answers, or its error and exits 1. */
export function printWhenRun(moduleUrl, find) {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  try {
    console.log(find());
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
