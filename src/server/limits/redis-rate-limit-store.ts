/**
 * Rate limits kept in Redis, so every relay process of a fleet limits as one.
 * Each decision is one Lua script run in Redis: read, refill,
 * take and write happen there atomically, and on Redis's own clock, so
 * processes whose clocks disagree still share one bucket. Keys expire once
 * idle long enough to be full (or empty) again.
 *
 * The client is node-redis (`redis` on npm, Redis's own client), which the
 * merchant installs and connects; this module only calls its `evalSha` and
 * `eval`, so merchants without Redis never install it.
 *
 * A Redis outage must never stop or crash a relay: the store listens to the
 * client's `error` events (node-redis throws them out of the process when
 * nobody listens), waits at most one second for an answer, and once one wait
 * has given up (or a call failed) fails at once, the calls still waiting
 * included, so the relay decides in this process's memory: a frozen Redis
 * costs the shoppers one wait, not one each.
 */
import { endsWith, timedWait, type WaitTimers } from '../../shared/answered-within.js';
import { type Clock, systemClock } from '../../shared/clock.js';
import type { RateLimitDecision, RateLimitStore } from './rate-limiter.js';

/** What the store needs of a node-redis client (v4 and later; a cluster client works too). */
export interface RedisScriptClient {
  /** Runs a script already loaded, by its SHA-1. */
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** Runs (and loads) a script. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** node-redis: false while the client has no connection it can use; the store then fails at once. */
  readonly isReady?: boolean;
  /** node-redis's events: the store listens to `error` (so none goes unhandled) and `ready`. */
  on?(event: 'error' | 'ready', listener: (error?: unknown) => void): unknown;
}

/** Options of {@link createRedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** Prefix of every key the store writes. Default `pay-checkout:limit:`. */
  prefix?: string;
  /** The timers the wait on Redis runs on: the system's by default (a test counts them). */
  clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

/** Redis's clock in ms, from inside a script. */
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** `takeToken` (rate-limiter.ts) in Lua: KEYS[1] the bucket; ARGV capacity, refill per minute. */
export const TOKEN_BUCKET_SCRIPT = `${NOW}
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 60000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = capacity
if state[1] then
  tokens = math.min(capacity, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * per_ms)
end
local allowed = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  retry = math.ceil((1 - tokens) / per_ms)
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
return { allowed, math.floor(tokens), retry }`;

/**
 * `takeWindowSlot` (rate-limiter.ts) in Lua: KEYS[1] a sorted set; ARGV member, limit, window ms.
 * The fourth value says whether this call counted the member (`newSlot`).
 */
export const SLIDING_WINDOW_SCRIPT = `${NOW}
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return { 1, math.max(0, limit - count), 0, 0 }
end
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], window)
  return { 1, limit - count - 1, 0, 1 }
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { 0, 0, math.max(1, tonumber(oldest[2]) + window - now), 0 }`;

/** `releaseSlot` in Lua: KEYS[1] the window, ARGV[1] the member whose slot is given back. */
export const RELEASE_SLOT_SCRIPT = "return redis.call('ZREM', KEYS[1], ARGV[1])";

/**
 * A {@link RateLimitStore} in Redis through a connected node-redis client
 * (`createClient({ url }).connect()`). Give the same store to every relay of
 * the fleet; the store never closes the client. It listens to the client's
 * `error` events itself, so a Redis outage never crashes the process; while
 * Redis is away the relay limits in its own memory and warns once.
 */
export function createRedisRateLimitStore(
  client: RedisScriptClient,
  options: RedisRateLimitStoreOptions = {},
): RateLimitStore {
  if (typeof client?.evalSha !== 'function' || typeof client.eval !== 'function') {
    throw new TypeError(
      'createRedisRateLimitStore: give a connected node-redis client: createClient({ url }) from "redis", after await client.connect().',
    );
  }
  const prefix = options.prefix ?? 'pay-checkout:limit:';
  const whileRedisAnswers = redisAvailability(client, options.clock ?? systemClock);
  const bucket = loadedScript(client, TOKEN_BUCKET_SCRIPT);
  const window = loadedScript(client, SLIDING_WINDOW_SCRIPT);
  const release = loadedScript(client, RELEASE_SLOT_SCRIPT);
  return {
    async take(key, rule) {
      const args = [String(rule.capacity), String(rule.refillPerMinute)];
      return decisionOf(await whileRedisAnswers(() => bucket([prefix + key], args)));
    },
    async takeSlot(key, member, rule) {
      const args = [member, String(rule.limit), String(Math.round(rule.windowMinutes * 60_000))];
      return decisionOf(await whileRedisAnswers(() => window([prefix + key], args)));
    },
    async releaseSlot(key, member) {
      await whileRedisAnswers(() => release([prefix + key], [member]));
    },
  };
}

/**
 * The longest a call waits on Redis before this process's memory decides. A
 * store's call takes well under a millisecond on a healthy Redis; node-redis's
 * own command timeout (5 s) covers only a command not yet sent, so a Redis
 * that stops answering on an open connection would otherwise hold every
 * create for good.
 */
const REDIS_ANSWER_TIMEOUT_MS = 1_000;

/** During an outage, how soon a Redis that refused a check at once (or is not connected) is checked again. */
const RECHECK_INTERVAL_MS = 1_000;

/**
 * Runs the store's calls while Redis answers, and fails them at once while it
 * does not: the client is not connected (`isReady` false), or a call failed
 * and Redis has not answered since. So during an outage a create waits at
 * most one {@link REDIS_ANSWER_TIMEOUT_MS}, and only if it was on its way
 * when Redis went silent; the first call to give up (or fail) lets every
 * other one still waiting go at once, so the whole outage costs one wait.
 * Meanwhile one check at a time runs in the background, no shopper waiting
 * on it, until Redis answers; a reconnect (`ready`) ends the outage at once.
 */
function redisAvailability(client: RedisScriptClient, timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>) {
  /** What began the outage; undefined while Redis answers. */
  let failure: unknown;
  let lastClientError: unknown;
  let checking = false;
  // Without a listener node-redis throws its connection errors out of the process;
  // each call that meets one fails too, and the relay warns through `onEvent`.
  client.on?.('error', (error) => {
    lastClientError = error;
  });
  client.on?.('ready', () => {
    failure = undefined;
  });

  async function check(): Promise<void> {
    if (failure === undefined) {
      checking = false;
      return;
    }
    const started = performance.now();
    if (client.isReady !== false) {
      try {
        // No time limit: a silent Redis answers this check when it wakes, and that ends the outage.
        await client.eval('return 1', { keys: [], arguments: [] });
        failure = undefined;
        checking = false;
        return;
      } catch (error) {
        failure = error;
      }
    }
    const timer = setTimeout(check, Math.max(0, RECHECK_INTERVAL_MS - (performance.now() - started)));
    // An outage never keeps the process from exiting.
    (timer as { unref?: () => void }).unref?.();
  }

  /** The calls waiting on Redis, each let go with the outage's error when another one meets it. */
  const waiting = new Set<(error: unknown) => void>();

  const outage = (error: unknown) => {
    failure ??= error;
    for (const letGo of [...waiting]) letGo(unavailable(error));
    if (!checking) {
      checking = true;
      void check();
    }
  };

  return async <Reply>(call: () => Promise<Reply>): Promise<Reply> => {
    if (failure !== undefined || client.isReady === false) throw unavailable(failure ?? lastClientError);
    try {
      return await answeredInTime(call(), waiting, timers);
    } catch (error) {
      outage(error);
      throw error;
    }
  };
}

/**
 * `pending`'s answer, or a rejection once it took {@link REDIS_ANSWER_TIMEOUT_MS},
 * or when another call met the outage and let every one in `waiting` go.
 */
function answeredInTime<Reply>(
  pending: Promise<Reply>,
  waiting: Set<(error: unknown) => void>,
  timers: WaitTimers,
): Promise<Reply> {
  const late = () => {
    throw new Error(`Redis did not answer within ${REDIS_ANSWER_TIMEOUT_MS} ms`);
  };
  return timedWait<Reply>(timers, REDIS_ANSWER_TIMEOUT_MS, late, (end) => {
    const letGo = (error: unknown) =>
      end(() => {
        throw error;
      });
    waiting.add(letGo);
    endsWith(pending)(end);
    return () => waiting.delete(letGo);
  });
}

/** The error of a call not sent because Redis is away; `cause` says why. */
function unavailable(cause: unknown): Error {
  const why = cause instanceof Error ? `: ${cause.message}` : '';
  return new Error(`Redis is unavailable${why}`, { cause });
}

/** Runs `script` by its SHA-1, loading it once more whenever Redis has forgotten it (a restart, SCRIPT FLUSH). */
function loadedScript(client: RedisScriptClient, script: string) {
  let sha1: Promise<string> | undefined;
  return async (keys: string[], args: string[]): Promise<unknown> => {
    sha1 ??= sha1Hex(script);
    try {
      return await client.evalSha(await sha1, { keys, arguments: args });
    } catch (error) {
      if (!String((error as Error | undefined)?.message).startsWith('NOSCRIPT')) throw error;
      return client.eval(script, { keys, arguments: args });
    }
  };
}

async function sha1Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A bucket's answer (three values), or a window's (four: the last says whether the slot is new). */
function decisionOf(reply: unknown): RateLimitDecision {
  if (!Array.isArray(reply) || reply.length < 3 || reply.length > 4) {
    throw new TypeError('The rate-limit script answered something unexpected.');
  }
  const [allowed, remaining, retryAfterMs, newSlot] = reply.map(Number) as [number, number, number, number?];
  const decision: RateLimitDecision = { allowed: allowed === 1, remaining, retryAfterMs };
  if (newSlot !== undefined) decision.newSlot = newSlot === 1;
  return decision;
}
