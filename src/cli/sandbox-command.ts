/**
 * `pay-checkout sandbox [--port N]`: the payments service in
 * test mode on its own, for a merchant whose server is in any language. It
 * runs until SIGINT or SIGTERM, then closes its server and exits 0.
 */
import { parseArgs } from 'node:util';
import { SANDBOX_KEYS } from '../sandbox/authentication.js';
import { SANDBOX_CONTROL_PATH } from '../sandbox/control-surface.js';
import { startSandbox } from '../sandbox/start-sandbox.js';
import { SANDBOX_TEST_NUMBERS } from '../sandbox/test-numbers.js';
import { stopSignal } from './stop-signal.js';
import { EXIT, integerOption } from './usage-error.js';

/** The port of `pay-checkout sandbox` without `--port`. */
const DEFAULT_SANDBOX_PORT = 4010;
const DEFAULT_APPROVE_MS = 6000;

/** `pay-checkout sandbox --help`. */
export const SANDBOX_HELP = `Usage: pay-checkout sandbox [--port ${DEFAULT_SANDBOX_PORT}] [--host 127.0.0.1] [--approve-ms ${DEFAULT_APPROVE_MS}]

Runs the payments service in test mode, offline: every endpoint of the
service, its keys, errors and idempotency. Give your relay, in any language,
its URL as the service's base URL and the key sk_test_sandbox. No money moves
and nothing leaves this machine; orders live in memory until it stops.
Ctrl-C or SIGTERM stops it.

Options:
  --port <n>         where to listen (default ${DEFAULT_SANDBOX_PORT}; 0 picks a free port)
  --host <address>   where to listen (default 127.0.0.1; the control surface has no key,
                     so listen elsewhere only on a network you trust)
  --approve-ms <ms>  when the simulated payer approves (default ${DEFAULT_APPROVE_MS})
  -h, --help         this text
`;

/** Starts the sandbox and prints where it is; resolves to the exit code once it has stopped. */
export async function runSandbox(args: readonly string[], print: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'approve-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    print(SANDBOX_HELP);
    return EXIT.ok;
  }
  const port = integerOption('port', values.port, DEFAULT_SANDBOX_PORT, 0, 65_535);
  const approveAfterMs = integerOption('approve-ms', values['approve-ms'], DEFAULT_APPROVE_MS, 0, 86_400_000);
  const host = values.host ?? '127.0.0.1';
  let running: Awaited<ReturnType<typeof startSandbox>>;
  try {
    running = await startSandbox({ port, host, approveAfterMs });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint = code === 'EADDRINUSE' ? ` (port ${port} is in use: pass --port 0 for a free one)` : '';
    process.stderr.write(
      `pay-checkout sandbox: cannot listen on ${host}:${port}: ${(error as Error).message}${hint}\n`,
    );
    return EXIT.failed;
  }
  // Listening for the signals before saying where it is: a supervisor may stop it as soon as it reads the URL.
  const stopped = stopSignal();
  printBanner(running.url, approveAfterMs, print);
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
    process.stderr.write(
      `pay-checkout sandbox: listening on ${host}, beyond this machine: its control surface takes no key, so anyone who reaches it can approve or decline payments. Test mode only, on a network you trust.\n`,
    );
  }
  await stopped;
  await running.close();
  print('pay-checkout sandbox: stopped.');
  return EXIT.ok;
}

function printBanner(url: string, approveAfterMs: number, print: (line: string) => void): void {
  const numbers = SANDBOX_TEST_NUMBERS;
  print(`pay-checkout sandbox: the payments service in test mode at ${url}`);
  print(`  secret key     ${SANDBOX_KEYS.secret}  (your relay's key, with ${url} as the service's base URL)`);
  print(`  read-only key  ${SANDBOX_KEYS.readOnly}`);
  print(
    `  test numbers   ${numbers.declines} declines, ${numbers.neverAnswers} never answers, ${numbers.insufficientFunds} insufficient funds;`,
  );
  print(`                 any other valid number approves after ${approveAfterMs} ms`);
  print(
    `  control        POST ${url}${SANDBOX_CONTROL_PATH}/approve or /decline with { "order_id": "or_…" }`,
  );
  print('Ctrl-C stops it.');
}
