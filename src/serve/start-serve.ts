/**
 * `startServe`: the relay as its own server, in this process. The command
 * (`pay-checkout serve`) and the tests both start it here: the configuration
 * and the environment checked, the journal, the limits' store and the
 * service (or the embedded sandbox) opened, the relay made by the library's
 * own `createCheckoutRelay`, and one `node:http` server routing to them.
 */
import type { Server } from 'node:http';
import { listen } from '../http/node/listen.js';
import { toNodeListener } from '../http/node/node-listener.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { Journal } from '../server/journal/journal.js';
import type { CheckoutRelayRateLimitOptions } from '../server/limits/relay-limit-config.js';
import { type CheckoutRelay, createCheckoutRelay } from '../server/node.js';
import { createServiceClient } from '../server/service-client/service-client.js';
import { randomLookupSecret } from '../server/tokens/lookup-token.js';
import { SERVICE_MAX_BODY_BYTES } from '../shared/service-contract.js';
import { cataloguePriceCart } from './catalogue-pricing.js';
import { type EmbedAsset, embedAsset, readBuiltEmbed } from './embed-asset.js';
import { gracefulClose } from './graceful-close.js';
import { mountMerchantApi } from './merchant-api-mount.js';
import { createReadiness } from './readiness.js';
import { checkServeConfig, type ServeConfig } from './serve-config.js';
import { readServeSecrets, type ServeSecrets } from './serve-environment.js';
import { EMBED_PATH, SANDBOX_PATH, serveListener } from './serve-listener.js';
import { createServeLog, type ServeLog } from './serve-log.js';
import {
  connectServeRedis,
  embeddedSandbox,
  journalForLog,
  openServeJournal,
  type ServeRedis,
  ServeSetupError,
} from './serve-parts.js';

/** Options of {@link startServe}. */
export interface StartServeOptions {
  /** The configuration file's content (parsed JSON); `{}`: every default. */
  config?: unknown;
  /** Where the secrets are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Where each log line goes. Default stdout. */
  writeLog?: (line: string) => void;
  /** The embed script's code; default the package's built `pay-checkout.embed.js`. */
  embed?: string | Buffer;
  /**
   * The relay's limits, in this process only (a benchmark lifts them to
   * measure the work of a lookup, not its refusal); the file has no such
   * key, and the command keeps the library's defaults.
   */
  rateLimit?: CheckoutRelayRateLimitOptions | false;
}

/** A running serve. */
export interface RunningServe {
  /** `http://HOST:PORT`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The configuration with its defaults. */
  readonly config: ServeConfig;
  /** The relay serve runs (the library's own). */
  readonly relay: CheckoutRelay;
  /** The embedded sandbox, without `service`. */
  readonly sandbox: Sandbox | undefined;
  /** The embed's `sha384-…`, when there is a built embed. */
  readonly integrity: string | undefined;
  readonly server: Server;
  /** Stops taking connections, answers what is in flight, closes the relay, its journal and Redis. */
  close(): Promise<void>;
}

/** The checked configuration and secrets, or a {@link ServeSetupError} naming every mistake. */
export function checkServeSetup(
  file: unknown,
  env: NodeJS.ProcessEnv,
): { config: ServeConfig; secrets: ServeSecrets } {
  const checked = checkServeConfig(file);
  // The environment is read against any configuration that parsed, so one run names every mistake.
  const secrets = checked.config ? readServeSecrets(checked.config, env) : undefined;
  const errors = [...(checked.ok ? [] : checked.errors), ...(secrets?.ok === false ? secrets.errors : [])];
  if (!checked.ok || !secrets?.ok) throw new ServeSetupError(errors);
  return { config: checked.config, secrets: secrets.secrets };
}

/** What serve runs without but warns of, for its log at start and for `--check`. */
export function setupWarnings(secrets: ServeSecrets): { event: string; message: string }[] {
  const warnings: { event: string; message: string }[] = [];
  if (secrets.apiKey === undefined) {
    warnings.push({
      event: 'merchant_api_off',
      message: 'PAY_CHECKOUT_API_KEY is not set: every /v1 request is refused.',
    });
  }
  if (secrets.lookupSecret === undefined) {
    warnings.push({
      event: 'lookup_secret_generated',
      message:
        'PAY_LOOKUP_SECRET is not set: a random one was made for this process. Lookup tokens stop working after a restart and on other serve processes; set it, the same on each.',
    });
  }
  return warnings;
}

/** Starts serve; rejects with a {@link ServeSetupError} for a configuration or environment it cannot run. */
export async function startServe(options: StartServeOptions = {}): Promise<RunningServe> {
  const { config, secrets } = checkServeSetup(options.config ?? {}, options.env ?? process.env);
  const log = createServeLog(options.writeLog);
  for (const { event, message } of setupWarnings(secrets)) log.write('warn', event, { message });
  const sandbox = config.service ? undefined : embeddedSandbox(config, log);
  const journal = await openServeJournal(config);
  let redis: ServeRedis | undefined;
  try {
    redis = config.redis === undefined ? undefined : await connectServeRedis(config.redis, log);
    const embed = options.embed === undefined ? await readBuiltEmbed() : embedAsset(options.embed);
    if (embed === undefined) {
      log.write('warn', 'embed_missing', {
        message: 'No built pay-checkout.embed.js beside serve: /pay-checkout.embed.js answers 404.',
      });
    }
    return await listenServe({
      config,
      secrets,
      log,
      sandbox,
      journal,
      redis,
      embed,
      rateLimit: options.rateLimit,
    });
  } catch (error) {
    await redis?.close();
    // The relay, once made, closed the journal itself; a second close must not hide why the start failed.
    await journal.close().catch(() => undefined);
    throw error;
  }
}

/** Everything serve runs on, opened. */
interface ServeParts {
  config: ServeConfig;
  secrets: ServeSecrets;
  log: ServeLog;
  sandbox: Sandbox | undefined;
  journal: Journal;
  redis: ServeRedis | undefined;
  embed: EmbedAsset | undefined;
  rateLimit: CheckoutRelayRateLimitOptions | false | undefined;
}

/** The origin the relay's service URL names for the embedded sandbox: its calls never reach a socket. */
const IN_PROCESS_ORIGIN = 'http://localhost';

function serviceOf(parts: ServeParts): { baseUrl: string; fetch?: typeof fetch } {
  const { sandbox, config } = parts;
  if (sandbox === undefined) return { baseUrl: config.service?.baseUrl ?? '' };
  return {
    baseUrl: `${IN_PROCESS_ORIGIN}${SANDBOX_PATH}`,
    fetch: (input, init) => sandbox.handle(new Request(input, init)),
  };
}

/** The relay's limits: in Redis for a fleet, lifted or changed in this process by `startServe`'s option. */
function rateLimitOf(parts: ServeParts): { rateLimit?: CheckoutRelayRateLimitOptions | false } {
  const { rateLimit, redis } = parts;
  if (rateLimit === false) return { rateLimit: false };
  if (rateLimit === undefined && redis === undefined) return {};
  return { rateLimit: { ...rateLimit, ...(redis ? { store: redis.store } : {}) } };
}

function relayOf(parts: ServeParts): CheckoutRelay {
  const { config, secrets, log, journal } = parts;
  return createCheckoutRelay({
    secretKey: secrets.secretKey,
    ...serviceOf(parts),
    priceCart: cataloguePriceCart(config.catalogue),
    lookupSecret: secrets.lookupSecret ?? randomLookupSecret(),
    ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
    ...rateLimitOf(parts),
    allowedOrigins: config.origins,
    journal,
    watch: config.watch,
    // Without webhooks, delivery is recorded in the journal and logged; the shop's backend verifies
    // through /v1. With them, each settled order's event is journalled and sent to every endpoint.
    ...(secrets.webhooks.length === 0
      ? { onPaid: () => undefined }
      : { webhooks: secrets.webhooks, allowPrivateWebhookTargets: config.allowPrivateWebhookTargets }),
    onEvent: log.relayEvent,
  });
}

async function listenServe(parts: ServeParts): Promise<RunningServe> {
  const { config, secrets, log, sandbox, journal, embed } = parts;
  const relay = relayOf(parts);
  const merchantApi = mountMerchantApi({
    relay,
    config,
    apiKey: secrets.apiKey,
    rateLimitStore: parts.redis?.store,
    log,
  });
  const client = createServiceClient({ ...serviceOf(parts), secretKey: secrets.secretKey, maxRetries: 0 });
  let closing = false;
  const listener = serveListener({
    relay: relay.node,
    merchantApi: toNodeListener(merchantApi),
    sandbox: sandbox && toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }),
    embed,
    readiness: createReadiness(journal, client),
    closing: () => closing,
  });
  const running = await listen(listener, config.listen).catch(async (error: unknown) => {
    await relay.close();
    throw error;
  });
  const drain = gracefulClose(running.server);
  log.write('info', 'serve_started', {
    url: running.url,
    service: sandbox ? 'embedded sandbox (test mode)' : config.service?.baseUrl,
    journal: journalForLog(config.journal),
    limits: parts.redis ? 'redis' : 'memory',
    origins: config.origins,
    catalogue: config.catalogue ? Object.keys(config.catalogue).length : 0,
    embed: embed ? { path: EMBED_PATH, integrity: embed.integrity } : null,
  });
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      closing = true;
      log.write('info', 'serve_closing', {});
      await drain();
      await relay.close();
      await parts.redis?.close();
      log.write('info', 'serve_stopped', {});
    })();
    return closed;
  };
  return {
    url: running.url,
    port: running.port,
    config,
    relay,
    sandbox,
    integrity: embed?.integrity,
    server: running.server,
    close,
  };
}
