/**
 * `pay-checkout serve [--config <file>] [--check]`: the relay as its own
 * server, for shops whose backend is in any language. The configuration is
 * a JSON file (default `pay-checkout.json` in the working directory; none:
 * every default), its secrets come from the environment, and `--check` only
 * judges both. It runs until SIGINT or SIGTERM, then answers what is in
 * flight, closes the relay and exits 0.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { missingDrivers, ServeSetupError } from '../serve/serve-parts.js';
import { checkServeSetup, setupWarnings, startServe } from '../serve/start-serve.js';
import { DEFAULT_CONFIG_FILE, readConfigFile } from './config-file.js';
import { stopSignal } from './stop-signal.js';
import { EXIT } from './usage-error.js';

/** `pay-checkout serve --help`. */
export const SERVE_HELP = `Usage: pay-checkout serve [--config ${DEFAULT_CONFIG_FILE}] [--check]

Runs the checkout relay as its own server: the routes <pay-checkout> calls
(/checkout/orders, /checkout/lookup, /checkout/price), the merchant API your
backend calls (/v1/…, with PAY_CHECKOUT_API_KEY), the embed script
(/pay-checkout.embed.js), /healthz and /readyz. Its journal is SQLite by
default; without "service" it pays into the embedded sandbox (test mode).
Logs are JSON, one object per line, on stdout. Ctrl-C or SIGTERM stops it
once the requests in flight are answered.

Options:
  --config <file>   the configuration (default ./${DEFAULT_CONFIG_FILE}; absent: every default);
                    its JSON Schema is pay-checkout/schema/pay-checkout.schema.json
  --check           check the configuration and the environment, then exit
                    (0: it would start; 1: each mistake named)
  -h, --help        this text

Environment:
  PAY_SECRET_KEY        the payments service's secret key (required with "service")
  PAY_CHECKOUT_API_KEY  the key your backend sends to /v1 (at least 32 characters)
  PAY_LOOKUP_SECRET     signs lookup tokens: the same on every serve process
  (each webhook's secretEnv)  the endpoint's whsec_… secret; during a rotation,
                        "secretEnv": "OLD,NEW" names both and each signs

Webhooks: "webhooks": [{ "url", "secretEnv", "events" }] POSTs each settled
order to your backend, signed; pay-checkout webhooks --help lists, replays
and tests them.
`;

/** Checks or starts serve; resolves to the exit code once it has stopped. */
export async function runServe(args: readonly string[], print: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      config: { type: 'string' },
      check: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    print(SERVE_HELP);
    return EXIT.ok;
  }
  const file = values.config ?? DEFAULT_CONFIG_FILE;
  const read = await readConfigFile(resolve(file), values.config !== undefined);
  const fail = (lines: readonly string[]) => {
    for (const line of lines) process.stderr.write(`pay-checkout serve: ${file}: ${line}\n`);
    return EXIT.failed;
  };
  if ('error' in read) return fail([read.error]);
  try {
    if (values.check) {
      const { config, secrets } = checkServeSetup(read.value, process.env);
      const missing = await missingDrivers(config);
      if (missing.length > 0) return fail(missing);
      for (const { message } of setupWarnings(secrets)) print(`pay-checkout serve: warning: ${message}`);
      print(`pay-checkout serve: ${file} and the environment are valid.`);
      return EXIT.ok;
    }
    return await serveUntilStopped(read.value);
  } catch (error) {
    if (error instanceof ServeSetupError) return fail(error.errors);
    throw error;
  }
}

async function serveUntilStopped(config: unknown): Promise<number> {
  let running: Awaited<ReturnType<typeof startServe>>;
  try {
    running = await startServe({ config });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw error;
    process.stderr.write(`pay-checkout serve: cannot listen: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
  await stopSignal();
  await running.close();
  return EXIT.ok;
}
