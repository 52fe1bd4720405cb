/**
 * Runs a command to its end and keeps what it printed, so a failing check can
 * show the tool's own words.
 */
import { spawn } from 'node:child_process';

/** What a finished command left. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `command args…`, then both outputs: for assertion messages. */
  transcript: string;
}

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Killed after this long. Default 120 s. */
  timeoutMs?: number;
}

/** Runs `command` with `args` (no shell) and resolves when it exits, whatever its exit code. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const transcript = `$ ${command} ${args.join(' ')}\n${stdout}${stderr}`;
      resolve({ code, stdout, stderr, transcript });
    });
  });
}

/**
 * The environment for an `npm` run inside another project: the variables an
 * outer `npm test` sets about *this* package (its prefix, its package.json,
 * its script) would otherwise leak into the consumer's install.
 */
export function npmChildEnvironment(): NodeJS.ProcessEnv {
  const leaking =
    /^npm_(package_|lifecycle_|config_(local_prefix|prefix|global_prefix|workspaces?|dry_run)$)/;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !leaking.test(name)));
}
