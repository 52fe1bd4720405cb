/**
 * `pay-checkout webhooks list|replay|test`: operations on the webhook events
 * serve journals, for the merchant on call. They open the journal serve's
 * configuration names (as serve does, beside running serve processes, which
 * send whatever a replay made due) and read a secret only for `test`.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkServeConfig, type ServeConfig } from '../serve/serve-config.js';
import { openServeJournal, ServeSetupError } from '../serve/serve-parts.js';
import { readEndpointSecrets } from '../serve/webhook-secrets.js';
import { relayWebhooks } from '../server/fulfilment/webhooks/webhook-operations.js';
import { DEFAULT_CONFIG_FILE, readConfigFile } from './config-file.js';
import { EXIT, UsageError } from './usage-error.js';
import { webhookListingLines } from './webhook-listing.js';
import { sendPing } from './webhook-ping.js';

/** `pay-checkout webhooks --help`. */
export const WEBHOOKS_HELP = `Usage: pay-checkout webhooks <list|replay|test> [--config ${DEFAULT_CONFIG_FILE}]

The webhook events serve keeps in its journal (the "journal" of the
configuration), beside running serve processes: they send what a replay makes
due.

  list [--failed] [--json]     each event, newest first, with each endpoint's
                               delivery and every attempt; --failed: only
                               events with a delivery that failed for good
  replay <event-id>            send the event again to each of its endpoints,
                               due now, from the start of the retry schedule
  replay --since <ISO time> [--endpoint <url>]
                               the same for every event since then (to one
                               endpoint only); a replay enables again an
                               endpoint that answered 410
  test <url>                   send a signed ping to the configured endpoint
                               <url>, with its secret (the variables its
                               secretEnv names), and print its answer

Options:
  --config <file>   serve's configuration (default ./${DEFAULT_CONFIG_FILE})
  -h, --help        this text

Exit 0 when done (test: the endpoint answered 2xx), 1 when not, 2 for bad
arguments. Ids, URLs, statuses and times only: no customer is printed.
`;

const OPTIONS = {
  config: { type: 'string' },
  failed: { type: 'boolean' },
  json: { type: 'boolean' },
  since: { type: 'string' },
  endpoint: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Runs `pay-checkout webhooks …`; resolves to the exit code. */
export async function runWebhooks(args: readonly string[], print: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true });
  const [action, ...operands] = positionals;
  if (values.help) {
    print(WEBHOOKS_HELP);
    return EXIT.ok;
  }
  const file = values.config ?? DEFAULT_CONFIG_FILE;
  const fail = (lines: readonly string[]) => {
    for (const line of lines) process.stderr.write(`pay-checkout webhooks: ${line}\n`);
    return EXIT.failed;
  };
  const read = await readConfigFile(resolve(file), values.config !== undefined);
  if ('error' in read) return fail([`${file}: ${read.error}`]);
  const checked = checkServeConfig(read.value);
  if (!checked.ok) return fail(checked.errors.map((line) => `${file}: ${line}`));
  const config = checked.config;
  try {
    if (action === 'list') return await list(config, values, operands, print);
    if (action === 'replay') return await replay(config, values, operands, print, fail);
    if (action === 'test') return await ping(config, file, operands, print, fail);
  } catch (error) {
    if (error instanceof ServeSetupError) return fail(error.errors);
    throw error;
  }
  throw new UsageError(
    action === undefined ? 'say what to do: list, replay or test.' : `no action ${JSON.stringify(action)}.`,
  );
}

/** Refuses operands and options `action` does not take. */
function only(
  action: string,
  operands: readonly string[],
  count: number,
  allowed: readonly (keyof Values)[],
  values: Values,
) {
  if (operands.length !== count) {
    throw new UsageError(count === 0 ? `${action} takes no operand.` : `${action} takes ${count} operand.`);
  }
  const given = (Object.keys(values) as (keyof Values)[]).filter((name) => name !== 'config');
  const stray = given.find((name) => !allowed.includes(name));
  if (stray !== undefined) throw new UsageError(`${action} takes no --${stray}.`);
}

/** Runs `use` on the configured journal, closing it after. */
async function withJournal<T>(
  config: ServeConfig,
  use: (webhooks: ReturnType<typeof relayWebhooks>) => Promise<T>,
) {
  const journal = await openServeJournal(config);
  try {
    // serve's dispatchers send what a replay made due: nothing to send from here.
    return await use(relayWebhooks(journal, () => undefined));
  } finally {
    await journal.close();
  }
}

async function list(
  config: ServeConfig,
  values: Values,
  operands: readonly string[],
  print: (line: string) => void,
) {
  only('list', operands, 0, ['failed', 'json'], values);
  const failed = values.failed === true;
  const events = await withJournal(config, (webhooks) => webhooks.list({ failed }));
  if (values.json) print(JSON.stringify(events, null, 2));
  else for (const line of webhookListingLines(events, failed)) print(line);
  return EXIT.ok;
}

async function replay(
  config: ServeConfig,
  values: Values,
  operands: readonly string[],
  print: (line: string) => void,
  fail: (lines: readonly string[]) => number,
) {
  if (values.since === undefined) {
    only('replay', operands, 1, [], values);
    const eventId = operands[0] as string;
    const count = await withJournal(config, (webhooks) => webhooks.replay(eventId));
    if (count === 0) return fail([`no event ${eventId} in the journal.`]);
    print(`Replayed ${eventId}: ${count} ${count === 1 ? 'delivery' : 'deliveries'} due now.`);
    return EXIT.ok;
  }
  only('replay --since', operands, 0, ['since', 'endpoint'], values);
  const since = values.since;
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(new Date(since).getTime())) {
    throw new UsageError(
      `--since must be an ISO 8601 time such as 2026-01-15T08:00:00Z; got ${JSON.stringify(since)}.`,
    );
  }
  // The journal knows an endpoint by its URL as parsed: `HTTPS://Shop.example` is `https://shop.example/`.
  const endpoint = values.endpoint === undefined ? undefined : normalUrl(values.endpoint);
  const count = await withJournal(config, (webhooks) =>
    webhooks.replay(endpoint === undefined ? { since } : { since, endpoint }),
  );
  const to = endpoint === undefined ? '' : ` to ${endpoint}`;
  print(
    `Replayed the events since ${new Date(since).toISOString()}${to}: ${count} ${count === 1 ? 'delivery' : 'deliveries'} due now.`,
  );
  return EXIT.ok;
}

async function ping(
  config: ServeConfig,
  file: string,
  operands: readonly string[],
  print: (line: string) => void,
  fail: (lines: readonly string[]) => number,
) {
  if (operands.length !== 1) throw new UsageError('test takes the URL of a configured endpoint.');
  const url = operands[0] as string;
  const index = config.webhooks.findIndex((endpoint) => sameUrl(endpoint.url, url));
  const endpoint = config.webhooks[index];
  if (endpoint === undefined) {
    const configured = config.webhooks.map((one) => one.url).join(', ') || 'none';
    return fail([`${url} is not an endpoint of ${file} (configured: ${configured}).`]);
  }
  const secrets = readEndpointSecrets(endpoint, index, process.env);
  if (secrets.errors.length > 0) return fail(secrets.errors.map((line) => `${file}: ${line}`));
  const { id, result } = await sendPing(secrets.endpoint, config.allowPrivateWebhookTargets);
  const answer = result.status === null ? 'no answer' : `answered ${result.status}`;
  const line = `ping ${id} to ${endpoint.url}: ${answer} in ${result.durationMs} ms${result.error ? ` (${result.error})` : ''}`;
  const delivered = result.status !== null && result.status >= 200 && result.status < 300;
  // How a receiver says the signature did not verify: most often it holds another secret.
  const unverified = result.status === 400 || result.status === 401 || result.status === 403;
  const hint = `the receiver did not accept the signature: give it the secret in ${endpoint.secretEnv.split(',').join(' or ')}.`;
  if (!delivered) return fail(unverified ? [line, hint] : [line]);
  print(line);
  return EXIT.ok;
}

/** `url` as the journal keeps it (parsed), or as given when it does not parse. */
function normalUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/** Whether two URLs name one endpoint, as the journal does once both are parsed. */
function sameUrl(a: string, b: string): boolean {
  return normalUrl(a) === normalUrl(b);
}
