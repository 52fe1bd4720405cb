#!/usr/bin/env node
/**
 * `pay-checkout`, the package's command, for merchants whose
 * server is in any language: `serve` runs the relay as its own server, `webhooks` lists and replays its deliveries, `sandbox` runs the payments service in test
 * mode on its own, `check-relay` checks a relay against the wire, `reconcile`
 * compares the service's orders with the relay's journal. No CLI
 * framework: `node:util`'s parseArgs reads the options.
 */
import { CHECK_RELAY_HELP, runCheckRelay } from './check-relay-command.js';
import { RECONCILE_HELP, runReconcile } from './reconcile-command.js';
import { runSandbox, SANDBOX_HELP } from './sandbox-command.js';
import { runServe, SERVE_HELP } from './serve-command.js';
import { EXIT, UsageError } from './usage-error.js';
import { runWebhooks, WEBHOOKS_HELP } from './webhooks-command.js';

const HELP = `Usage: pay-checkout <command> [options]

Commands:
  serve                        run the checkout relay as its own server (./pay-checkout.json, default port 8787)
  sandbox                      run the payments service in test mode, offline (default port 4010)
  check-relay <base-url>       check your relay, in any language, against the wire of <pay-checkout>
  reconcile --journal <url>    list every difference between the service's orders and the journal
  webhooks list|replay|test    list, replay and test the webhooks serve sends your backend

pay-checkout <command> --help tells more.
`;

const COMMANDS: Readonly<Record<string, { run: typeof runSandbox; help: string }>> = {
  serve: { run: runServe, help: SERVE_HELP },
  sandbox: { run: runSandbox, help: SANDBOX_HELP },
  'check-relay': { run: runCheckRelay, help: CHECK_RELAY_HELP },
  reconcile: { run: runReconcile, help: RECONCILE_HELP },
  webhooks: { run: runWebhooks, help: WEBHOOKS_HELP },
};

/** Runs `pay-checkout` with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  // `npx pay-checkout -- sandbox` hands the separator on: it is no command.
  const [name, ...args] = argv[0] === '--' ? argv.slice(1) : argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    print(HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`pay-checkout: no command ${JSON.stringify(name)}.\n\n${HELP}`);
    return EXIT.usage;
  }
  try {
    return await command.run(args, print);
  } catch (error) {
    // parseArgs throws a TypeError with a code for unknown options and missing values.
    const usage =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!usage) throw error;
    process.stderr.write(
      `pay-checkout ${name}: ${(error as Error).message}\nSee: pay-checkout ${name} --help\n`,
    );
    return EXIT.usage;
  }
}

// A reader that stops early (`pay-checkout webhooks list | head`) closes the pipe: the command
// has nobody left to tell, so it ends quietly rather than with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});
process.exitCode = await main(process.argv.slice(2));
