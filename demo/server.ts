/**
 * `npm start`: the sales demo, the relay and the sandbox on one origin.
 * Reads PORT, HOST, PAY_API_BASE_URL, PAY_SECRET_KEY,
 * PAY_SANDBOX_APPROVE_MS, PAY_LOOKUP_SECRET and PAY_JOURNAL_URL; prints where it listens and
 * what it pays through, never a key in full; stops cleanly on Ctrl-C.
 * Tests start the same server through `startDemoServer`.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRelayLogFormatter } from './server/relay-log.js';
import {
  DemoConfigurationError,
  type DemoServerOptions,
  demoServerOptionsFromEnv,
  type RunningDemoServer,
  startDemoServer,
} from './server/start-demo-server.js';

export {
  type DemoServerOptions,
  type RunningDemoServer,
  startDemoServer,
} from './server/start-demo-server.js';

/** Starts the demo from the environment and prints how to reach it; exit code 1 when it cannot start. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let options: DemoServerOptions;
  let server: RunningDemoServer;
  const formatRelayEvent = createRelayLogFormatter();
  try {
    options = demoServerOptionsFromEnv(env);
    server = await startDemoServer({
      ...options,
      onRelayEvent: (event) => {
        const line = formatRelayEvent(event);
        if (line) console.log(`  ${new Date().toISOString().slice(11, 19)}  ${line}`);
      },
      onFulfilled: (order) => {
        const callback = { paid: 'onPaid', failed: 'onFailed', expired: 'onExpired' }[order.outcome];
        const amount = `${order.amount.currency.toUpperCase()} ${(order.amount.value / 100).toFixed(2)}`;
        console.log(
          `  ${new Date().toISOString().slice(11, 19)}  ${callback}(${order.id}): the merchant's server heard, ${order.reference ?? 'no reference'}, ${amount}`,
        );
      },
    });
  } catch (error) {
    process.exitCode = 1;
    console.error(`pay-checkout demo: ${describeStartFailure(error, env)}`);
    return;
  }
  console.log(banner(server, options, env));

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log(`\n  ${signal}: stopping the demo server…`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function banner(server: RunningDemoServer, options: DemoServerOptions, env: NodeJS.ProcessEnv): string {
  const key = server.maskedSecretKey;
  const payments =
    server.mode === 'sandbox'
      ? `the embedded sandbox at ${server.serviceBaseUrl} (key ${key}; its payer approves after ${options.sandboxApproveAfterMs} ms)`
      : `the payments service at ${server.serviceBaseUrl} (key ${key})`;
  const lines = [
    '',
    `  pay-checkout demo   ${server.url}/`,
    '',
    `  payments through    ${payments}`,
    '  relay               /api/checkout/orders, /api/checkout/lookup, /api/checkout/price',
    `  lookup tokens       ${env.PAY_LOOKUP_SECRET ? 'signed with PAY_LOOKUP_SECRET' : 'signed with a random secret for this run'}`,
    `  order journal       ${describeJournal(options.journalUrl)}`,
  ];
  if (options.host === '0.0.0.0' || options.host === '::') {
    lines.push(`  listening on        every interface (HOST=${options.host})`);
  }
  lines.push('', '  Press Ctrl-C to stop.', '');
  return lines.join('\n');
}

/** The journal's URL without a password (a PostgreSQL URL may carry one). */
function describeJournal(url = 'memory:'): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

function describeStartFailure(error: unknown, env: NodeJS.ProcessEnv): string {
  if (error instanceof DemoConfigurationError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const port = env.PORT || '5173';
  const host = env.HOST || '127.0.0.1';
  if (code === 'EADDRINUSE') {
    return `port ${port} on ${host} is already in use (another "npm start"?). Stop the other server, or pick another port: PORT=${Number(port) + 1} npm start`;
  }
  if (code === 'EACCES')
    return `not allowed to listen on port ${port}: pick a port above 1023, e.g. PORT=5173.`;
  if (code === 'EADDRNOTAVAIL') return `HOST=${host} is not an address of this machine.`;
  // Relay setup errors (a malformed key, say) are TypeErrors whose messages never quote the key.
  return error instanceof Error ? error.message : String(error);
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) await main();
