/**
 * The watcher's options, checked once into frozen settings: among them the
 * target settled orders are delivered to (targets/), today the merchant's
 * callbacks.
 * Times the watcher keeps for itself (its rhythm, a pause) are epoch
 * milliseconds from the relay's `clock`, and its ticks are scheduled on that
 * clock's timers, so a test moves both by hand; what the journal stores
 * (leases, due times, an order's age) is on the journal's own clock.
 */
import type { Clock } from '../../shared/clock.js';
import { DEFAULT_RETENTION_MS, type Journal } from '../journal/journal.js';
import { callbackTarget, type FulfilmentCallback } from './targets/callbacks.js';
import type { DeliveryTarget } from './targets/delivery-target.js';
import { webhookTarget } from './targets/webhooks.js';
import type { WebhookSender } from './webhooks/webhook-dispatcher.js';
import {
  resolveWebhookSettings,
  type WebhookOptions,
  type WebhookSettings,
} from './webhooks/webhook-settings.js';

export type { FulfilmentCallback } from './targets/callbacks.js';

/** The service's polling interval is 2 to 5 s; 3 s unless the merchant says otherwise. */
export const DEFAULT_WATCH_INTERVAL_MS = 3_000;
/** Shortest interval accepted: the service's lower bound. */
export const MIN_WATCH_INTERVAL_MS = 2_000;
/** Longest interval accepted: the service's upper bound. */
export const MAX_WATCH_INTERVAL_MS = 5_000;
/** How long the payer has to approve before the watcher backs off: 6 minutes. */
export const DEFAULT_APPROVAL_WINDOW_MS = 6 * 60 * 1000;
/** How long an order is watched at most before `onExpired`: 24 hours. */
export const DEFAULT_MAX_WATCH_MS = 24 * 60 * 60 * 1000;
/**
 * How long a create may stay unanswered before the watcher resends it. Longer
 * than the relay's own create call with all its retries (3 tries of 10 s and
 * waits of at most 5 s), so the watcher never races a live create.
 */
export const DEFAULT_CREATE_GRACE_MS = 60_000;
/** How long a claim on an order is exclusive; a dead process's orders pass on after it. */
export const DEFAULT_LEASE_MS = 30_000;
/** How long a callback may run before the call counts as failed and is retried later: 30 s. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 30_000;

/** How often the fleet sweeps the service's orders for late payments (late-payment-sweep.ts): 15 minutes. */
export const DEFAULT_SWEEP_INTERVAL_MS = 15 * 60 * 1000;

/** Timing of the watcher; every field has a default. */
export interface WatchOptions {
  /** Lookup interval while the payer can approve; clamped to 2–5 s. Default 3 s. */
  intervalMs?: number;
  /** How long the payer can approve; after it the watcher backs off. Default 6 minutes. */
  approvalWindowMs?: number;
  /** Total bound of watching, after which `onExpired` is called. Default 24 hours. */
  maxWatchMs?: number;
  /** How long delivered orders stay in the journal. Default 30 days. */
  retentionMs?: number;
  /** How long a create may go unanswered before the watcher resends it. Default 60 s. */
  createGraceMs?: number;
  /** How long one process's claim on an order lasts. Default 30 s. */
  leaseMs?: number;
  /** How long a callback may run; past it the call counts as failed and is retried later. Default 30 s. */
  callbackTimeoutMs?: number;
  /**
   * How often one process of the fleet pages through the service's orders for
   * payments made after `onExpired` (each sweep costs about one call per 256
   * orders made since the oldest expired order). Default 15 minutes.
   */
  sweepIntervalMs?: number;
  /** `false`: the relay runs no watcher pass by itself; call `relay.fulfilment.tick()` (a cron job, a test). Default `true`. */
  ticks?: boolean;
}

/** The fulfilment options of `createCheckoutRelay`. */
export interface FulfilmentOptions extends WebhookOptions {
  /** The order journal (`openJournal`); without it the relay watches nothing. */
  journal?: Journal;
  /** Called once per paid order (at least once across a crash, a time-out or a pause longer than the lease inside it): ship it. Optional with `webhooks`. */
  onPaid?: FulfilmentCallback;
  /** Called once per declined, failed or cancelled order. */
  onFailed?: FulfilmentCallback;
  /** Called once per order that never settled within `watch.maxWatchMs`. */
  onExpired?: FulfilmentCallback;
  /** The watcher's timing. */
  watch?: WatchOptions;
  /** The relay's clock as the merchant gave it; `undefined`: the system's. */
  clock?: Clock;
}

/** The timers the watcher and delivery schedule on: the relay's `Clock`'s. */
export type WatchTimers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

/** Everything the watcher and delivery read, checked. */
export interface FulfilmentSettings {
  /** The journal the watcher and the deliveries use: on connections of their own where the store has a pool. */
  readonly journal: Journal;
  /** The journal as the merchant gave it, for shoppers' requests and `relay.orders`. */
  readonly requestJournal: Journal;
  /** Where settled orders are delivered: the merchant's callbacks, webhooks, or both. */
  readonly target: DeliveryTarget;
  /** The webhook endpoints and their sender; `undefined` without webhooks. */
  readonly webhooks: WebhookSettings | undefined;
  readonly intervalMs: number;
  readonly approvalWindowMs: number;
  readonly maxWatchMs: number;
  readonly retentionMs: number;
  readonly createGraceMs: number;
  readonly leaseMs: number;
  /** How long one delivery to the target may run (`watch.callbackTimeoutMs`). */
  readonly callbackTimeoutMs: number;
  readonly sweepIntervalMs: number;
  /** The relay's clock, epoch ms. */
  readonly now: () => number;
  /** The relay's clock's timers, the ticks are scheduled on; `undefined` when the merchant runs the ticks. */
  readonly timers: WatchTimers | undefined;
  /**
   * The timers a delivery and `close()` wait on (a delivery's time limit, its
   * lease, a retried write, the grace), ticks or not: those of the clock the
   * merchant gave, or the runtime's, which keep the process alive while
   * something waits on them.
   */
  readonly deliveryTimers: WatchTimers;
  /**
   * The clocks a lease's elapsed time is read on: the runtime's monotonic
   * one, and the merchant's `clock` when one was given.
   */
  readonly elapsedClocks: readonly (() => number)[];
  /** This process's name in leases: unique, so two processes never hold one order. */
  readonly owner: string;
}

const JOURNAL_METHODS = ['recordIntent', 'claimDue', 'claimUndelivered', 'markDelivered', 'close'] as const;

/** Checks the fulfilment options, on the relay's `clock`; `undefined` without a journal (the relay then watches nothing). */
export function resolveFulfilmentSettings(
  options: FulfilmentOptions,
  clock: Clock,
  owner: string,
  sender?: WebhookSender,
): FulfilmentSettings | undefined {
  const { journal } = options;
  if (journal === undefined) {
    if (options.onPaid || options.onFailed || options.onExpired || options.watch || options.webhooks) {
      throw new TypeError(
        `${owner}: onPaid, onFailed, onExpired, webhooks and watch need a journal: give journal: await openJournal('sqlite:.data/pay-checkout.db').`,
      );
    }
    return undefined;
  }
  if (
    typeof journal !== 'object' ||
    journal === null ||
    JOURNAL_METHODS.some((m) => typeof journal[m] !== 'function')
  ) {
    throw new TypeError(`${owner}: journal must be what openJournal(url) returns.`);
  }
  const webhooks = resolveWebhookSettings(options, sender, owner);
  const watcherJournal = journal.watcherConnections?.() ?? journal;
  const callbacks = callbacksOf(options, owner, webhooks !== undefined);
  const target: DeliveryTarget = webhooks
    ? webhookTarget({
        endpoints: webhooks.endpoints,
        journal: watcherJournal,
        callbacks,
        journalled: () => webhooks.journalled.listener(),
      })
    : (callbacks as DeliveryTarget);
  const watch = options.watch ?? {};
  return Object.freeze({
    journal: watcherJournal,
    requestJournal: journal,
    target,
    webhooks,
    intervalMs: Math.min(
      MAX_WATCH_INTERVAL_MS,
      Math.max(
        MIN_WATCH_INTERVAL_MS,
        positive(watch.intervalMs, DEFAULT_WATCH_INTERVAL_MS, 'intervalMs', owner),
      ),
    ),
    approvalWindowMs: positive(watch.approvalWindowMs, DEFAULT_APPROVAL_WINDOW_MS, 'approvalWindowMs', owner),
    maxWatchMs: positive(watch.maxWatchMs, DEFAULT_MAX_WATCH_MS, 'maxWatchMs', owner),
    retentionMs: positive(watch.retentionMs, DEFAULT_RETENTION_MS, 'retentionMs', owner),
    createGraceMs: positive(watch.createGraceMs, DEFAULT_CREATE_GRACE_MS, 'createGraceMs', owner),
    leaseMs: positive(watch.leaseMs, DEFAULT_LEASE_MS, 'leaseMs', owner),
    callbackTimeoutMs: positive(
      watch.callbackTimeoutMs,
      DEFAULT_CALLBACK_TIMEOUT_MS,
      'callbackTimeoutMs',
      owner,
    ),
    sweepIntervalMs: positive(watch.sweepIntervalMs, DEFAULT_SWEEP_INTERVAL_MS, 'sweepIntervalMs', owner),
    now: () => clock.now(),
    timers: ticksOf(watch.ticks, owner) ? clock : undefined,
    deliveryTimers: options.clock === undefined ? waitingTimers : clock,
    elapsedClocks: Object.freeze(
      options.clock === undefined ? [monotonicNow] : [monotonicNow, () => clock.now()],
    ),
    owner: `relay-${crypto.randomUUID()}`,
  });
}

/**
 * The callbacks of `options` as a target, checked: `onPaid` is required
 * unless webhooks tell the merchant's server of paid orders; `undefined`
 * when webhooks are given and no callback is.
 */
function callbacksOf(
  options: FulfilmentOptions,
  owner: string,
  webhooks: boolean,
): DeliveryTarget | undefined {
  for (const name of ['onPaid', 'onFailed', 'onExpired'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw new TypeError(`${owner}: ${name} must be a function.`);
  }
  const { onPaid, onFailed, onExpired } = options;
  if (onPaid === undefined) {
    if (!webhooks)
      throw new TypeError(
        `${owner}: with a journal, give onPaid(order) or webhooks: it is how your server hears of a paid order.`,
      );
    if (onFailed === undefined && onExpired === undefined) return undefined;
  }
  return callbackTarget({ onPaid, onFailed, onExpired });
}

function positive(value: unknown, fallback: number, name: string, owner: string): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  throw new TypeError(`${owner}: watch.${name} must be a positive number of milliseconds.`);
}

function ticksOf(ticks: unknown, owner: string): boolean {
  if (ticks === undefined) return true;
  if (typeof ticks === 'boolean') return ticks;
  throw new TypeError(`${owner}: watch.ticks must be true or false.`);
}

/** Milliseconds on the runtime's monotonic clock: it never jumps, and a paused process finds it moved on. */
const monotonicNow = () => performance.now();

/** The runtime's timers, as they are: a `tick()` or `close()` awaited in a script keeps its process alive. */
const waitingTimers: WatchTimers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout(handle) {
    globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]);
  },
};
