/**
 * The parts `startServe` opens before it listens, each with the message a
 * merchant needs when it cannot: the journal, the Redis of the fleet's
 * limits, and the embedded sandbox when no service is configured.
 */
import { createSandbox, type Sandbox } from '../sandbox/sandbox.js';
import type { Journal } from '../server/journal/journal.js';
import { openJournal } from '../server/journal/open-journal.js';
import type { RateLimitStore } from '../server/limits/rate-limiter.js';
import {
  createRedisRateLimitStore,
  type RedisScriptClient,
} from '../server/limits/redis-rate-limit-store.js';
import type { ServeConfig } from './serve-config.js';
import { SANDBOX_PATH } from './serve-listener.js';
import type { ServeLog } from './serve-log.js';

/** A configuration or environment serve cannot start with: one line per mistake. */
export class ServeSetupError extends Error {
  override name = 'ServeSetupError';
  /** `field: expected …`, one per mistake. */
  readonly errors: readonly string[];

  constructor(errors: readonly string[]) {
    super(errors.join('\n'));
    this.errors = errors;
  }
}

/** How long serve waits for Redis at start before it goes on with this process's limits. */
const REDIS_CONNECT_MS = 5_000;

/** The scheme of a journal URL: what the log may say of it (a PostgreSQL URL may hold a password). */
export function journalScheme(url: string): string {
  return url.slice(0, url.indexOf(':') + 1);
}

/** Opens the configured journal, or says which package it needs. */
export async function openServeJournal(config: ServeConfig): Promise<Journal> {
  try {
    return await openJournal(config.journal);
  } catch (error) {
    const packageName = (error as { packageName?: unknown }).packageName;
    if (typeof packageName === 'string') {
      throw new ServeSetupError([
        `journal: the ${journalScheme(config.journal)} journal needs the ${packageName} package: npm install ${packageName}`,
      ]);
    }
    throw error;
  }
}

/** The drivers a configuration needs: the journal's, and node-redis for `redis`. */
function driversOf(config: ServeConfig): { packageName: string; field: string; why: string }[] {
  const scheme = journalScheme(config.journal);
  const drivers = [];
  if (scheme === 'sqlite:')
    drivers.push({ packageName: 'libsql', field: 'journal', why: 'the sqlite: journal' });
  if (scheme.startsWith('postgres')) {
    drivers.push({ packageName: 'pg', field: 'journal', why: `the ${scheme} journal` });
  }
  if (config.redis !== undefined) {
    drivers.push({ packageName: 'redis', field: 'redis', why: 'a Redis for the rate limits' });
  }
  return drivers;
}

/** One line per driver the configuration needs that is not installed (`--check` says so before a start would). */
export async function missingDrivers(config: ServeConfig): Promise<string[]> {
  const missing: string[] = [];
  for (const { packageName, field, why } of driversOf(config)) {
    try {
      await import(packageName);
    } catch {
      missing.push(`${field}: ${why} needs the ${packageName} package: npm install ${packageName}`);
    }
  }
  return missing;
}

/** A connected Redis for the fleet's limits, and how to close it. */
export interface ServeRedis {
  readonly store: RateLimitStore;
  close(): Promise<void>;
}

/** Connects to the configured Redis, or says to install `redis`. */
export async function connectServeRedis(url: string, log: ServeLog): Promise<ServeRedis> {
  let createClient: (options: { url: string }) => RedisScriptClient & {
    connect(): Promise<unknown>;
    quit?(): Promise<unknown>;
    close?(): Promise<unknown>;
    on(event: string, listener: (error: unknown) => void): unknown;
  };
  try {
    const packageName = 'redis';
    ({ createClient } = (await import(packageName)) as { createClient: typeof createClient });
  } catch {
    throw new ServeSetupError([
      'redis: a Redis for the rate limits needs the redis package: npm install redis',
    ]);
  }
  const client = createClient({ url });
  client.on('error', (error) =>
    log.write('warn', 'redis_error', { error: { name: (error as Error)?.name } }),
  );
  const connected = await Promise.race([
    client.connect().then(() => true),
    new Promise<false>((resolve) => setTimeout(resolve, REDIS_CONNECT_MS, false).unref()),
  ]).catch(() => false);
  if (!connected)
    log.write('warn', 'redis_unavailable', { message: 'limits held in this process until Redis answers' });
  return {
    store: createRedisRateLimitStore(client),
    close: async () => {
      await (client.close?.() ?? client.quit?.())?.catch(() => undefined);
    },
  };
}

/** The embedded sandbox, with the loud warning that nothing real happens. */
export function embeddedSandbox(config: ServeConfig, log: ServeLog): Sandbox {
  log.write('warn', 'sandbox_embedded', {
    message:
      'No "service" configured: payments go to the embedded sandbox, in test mode. NO REAL MONEY MOVES. Configure "service" and PAY_SECRET_KEY to take payments.',
    path: SANDBOX_PATH,
  });
  if (!['127.0.0.1', 'localhost', '::1'].includes(config.listen.host)) {
    log.write('warn', 'sandbox_reachable', {
      message: `Listening on ${config.listen.host}: the sandbox's service API, whose key is published, is reachable beyond this machine (its control surface is not). Test mode only, on a network you trust.`,
    });
  }
  return createSandbox({
    basePath: SANDBOX_PATH,
    ...(config.sandbox.approveAfterMs === undefined ? {} : { approveAfterMs: config.sandbox.approveAfterMs }),
  });
}
