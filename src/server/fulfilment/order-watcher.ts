/**
 * The watcher's pass: claims the orders due (leases make one lookup in
 * flight per order across the fleet), resends creates that never got an
 * answer, looks pending orders up, and records what it read. When the
 * service is down or answers `429`, the whole watcher pauses, doubling the
 * pause, and probes with one call at a time: the call rate stays bounded and
 * every order stays in the journal, due again after the pause. A pass starts
 * with one batch; once the service has answered it, four lanes of batches run
 * at once, so the round trips of one batch do not bound the rate.
 */
import { orderCreatedEvent } from '../events/order-created.js';
import type { RelayReporter } from '../events/relay-reporter.js';
import type { Claimed, CreatingEntry, PendingEntry, WatchingEntry } from '../journal/journal.js';
import { outcomeOfPaymentStatus } from '../journal/journal-row.js';
import type { OrderLookups } from '../lookups/order-lookups.js';
import { readingOf } from '../orders/order-status-read.js';
import { chargedAmount, serviceReadingOf } from '../orders/service-reading.js';
import type { ServiceClient } from '../service-client/service-client.js';
import { ServiceNotFoundError } from '../service-client/service-errors.js';
import type { OrderCreateInput, OrderCreateResult } from '../service-client/service-schemas.js';
import {
  isRefusedForGood,
  provesNoOrder,
  type ServiceTrouble,
  serviceTroubleOf,
} from '../service-client/service-trouble.js';
import { type FirstUnknown, knownAgain, settleUnknownOrder } from './unknown-order.js';
import { isPastBound, MAX_SERVICE_PAUSE_MS, nextCheckInPass, servicePauseMs } from './watch-schedule.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** Orders claimed at once; they are looked up in parallel. */
export const WATCH_BATCH_SIZE = 25;
/** Batches claimed and watched at once, once the first batch of a pass has shown the service answers. */
export const WATCH_LANES = 4;
/** Batches at most per pass: 10,000 orders. */
const MAX_BATCHES_PER_PASS = 400;

/** What the watcher needs. */
export interface OrderWatcherDeps {
  readonly settings: FulfilmentSettings;
  /** A service client that does not retry by itself: the watcher's own schedule is its retry. */
  readonly client: ServiceClient;
  /** Where its lookups go: shared with the browsers' lookups of the same order, one service call for both. */
  readonly lookups: WatcherLookups;
  readonly reporter: Pick<RelayReporter, 'emit'>;
  /** Called when an order settled, so its delivery comes at once. */
  readonly onSettled: () => void;
}

/** The watcher's side of the relay's shared lookups. */
export type WatcherLookups = Pick<OrderLookups, 'forWatcher'>;

/** One pass's figures. */
export interface WatchPass {
  /** Calls made to the service (lookups and resent creates). */
  calls: number;
  /** Whether the watcher is paused after this pass. */
  paused: boolean;
}

/** The watcher: `watchOnce()` runs one pass; passes must not overlap (the runner sees to it). */
export interface OrderWatcher {
  watchOnce(): Promise<WatchPass>;
}

/** The watcher's state across passes: its dependencies and its pause. */
interface Watch extends OrderWatcherDeps {
  readonly pause: { until: number; failures: number };
  /** When the pass running now began, on this process's clock: the next lookups are scheduled on its rhythm. */
  passStartedAt: number;
  /** Orders the service has answered `404` for once: a second such answer settles them. */
  readonly firstUnknown: FirstUnknown;
}

/**
 * A claimed entry as this process sees it. Its age comes from the journal's
 * clock (`claimedAt - createdAt`), so a jump of this process's clock can
 * neither expire it early nor slow its lookups; `createdHere` carries that
 * age onto this process's clock, where the pass's rhythm is kept.
 */
interface ClaimedOrder {
  entry: Claimed<PendingEntry>;
  /** When the order was created, on this process's clock as it read just after the claim. */
  createdHere: number;
}

/** A claimed entry the service could not be asked about, and why. */
interface Troubled {
  entry: Claimed<PendingEntry>;
  trouble: ServiceTrouble;
}

/** Creates the watcher of one relay process. */
export function createOrderWatcher(deps: OrderWatcherDeps): OrderWatcher {
  const watch: Watch = {
    ...deps,
    pause: { until: 0, failures: 0 },
    passStartedAt: 0,
    firstUnknown: new Map(),
  };
  return { watchOnce: () => watchOnce(watch) };
}

/** How a batch ended: all it asked for (more may be due), fewer (none left), or service trouble. */
type BatchEnd = 'full' | 'short' | 'trouble';

/** What a pass has done so far, shared by its lanes. */
interface PassState {
  calls: number;
  batches: number;
  troubles: Troubled[];
}

async function watchOnce(watch: Watch): Promise<WatchPass> {
  const { settings, pause } = watch;
  watch.passStartedAt = settings.now();
  // A pause never outlasts its longest, even when this process's clock is set back during it.
  const pauseLeft = pause.until - watch.passStartedAt;
  if (pauseLeft > 0 && pauseLeft <= MAX_SERVICE_PAUSE_MS) return { calls: 0, paused: true };
  const pass: PassState = { calls: 0, batches: 0, troubles: [] };
  // One batch goes first (after trouble, one order probes the service); only
  // once the service has answered do the lanes call it at full rate.
  const probing = pause.failures > 0;
  const first = await watchBatch(watch, pass, probing ? 1 : WATCH_BATCH_SIZE);
  if (probing && first !== 'trouble' && pass.batches > 0) {
    pause.failures = 0;
    watch.reporter.emit({ type: 'watcher_resumed' });
  }
  if (first === 'full') await Promise.all(Array.from({ length: WATCH_LANES }, () => watchLane(watch, pass)));
  if (pass.troubles.length === 0) return { calls: pass.calls, paused: false };
  await pauseFor(watch, pass.troubles);
  return { calls: pass.calls, paused: true };
}

/** Claims and watches batches until none is full, the pass has met trouble, or it has done its share. */
async function watchLane(watch: Watch, pass: PassState): Promise<void> {
  while (pass.troubles.length === 0 && pass.batches < MAX_BATCHES_PER_PASS) {
    if ((await watchBatch(watch, pass, WATCH_BATCH_SIZE)) !== 'full') return;
  }
}

/** Claims up to `limit` due orders and acts on each at once. */
async function watchBatch(watch: Watch, pass: PassState, limit: number): Promise<BatchEnd> {
  const { settings } = watch;
  const entries = await claim(watch, limit);
  if (!entries || entries.length === 0) return 'short';
  const claimedHere = settings.now();
  pass.batches += 1;
  pass.calls += entries.filter((entry) => !isPastBound(settings, entry.createdAt, entry.claimedAt)).length;
  const results = await Promise.all(
    entries.map(async (entry) => {
      const order = { entry, createdHere: claimedHere - (entry.claimedAt - entry.createdAt) };
      return { entry, trouble: await watchEntry(watch, order) };
    }),
  );
  const troubles = results.filter((result): result is Troubled => result.trouble !== undefined);
  pass.troubles.push(...troubles);
  if (troubles.length > 0) return 'trouble';
  return entries.length < limit ? 'short' : 'full';
}

async function claim(watch: Watch, limit: number): Promise<Claimed<PendingEntry>[] | undefined> {
  const { settings } = watch;
  try {
    return await settings.journal.claimDue(settings.owner, { limit, leaseMs: settings.leaseMs });
  } catch (error) {
    watch.reporter.emit({ type: 'watcher_error', stage: 'claim', error });
    return undefined;
  }
}

/** Acts on one claimed entry; the trouble it met, if the service is down or busy. */
async function watchEntry(watch: Watch, order: ClaimedOrder): Promise<ServiceTrouble | undefined> {
  const { entry, createdHere } = order;
  try {
    // The bound is judged on the journal's clock alone.
    if (isPastBound(watch.settings, entry.createdAt, entry.claimedAt)) {
      await expire(watch, entry);
      return undefined;
    }
    return entry.phase === 'creating'
      ? await resendCreate(watch, entry, createdHere)
      : await lookUp(watch, entry, createdHere);
  } catch (error) {
    // The journal failed: the lease runs out and the order is claimed again; nothing is lost.
    watch.reporter.emit({ type: 'watcher_error', stage: 'record', error });
    return undefined;
  }
}

/** Pauses the watcher after trouble, and puts every troubled order off until the pause ends. */
async function pauseFor(watch: Watch, troubles: Troubled[]): Promise<void> {
  const { settings, pause } = watch;
  pause.failures += 1;
  const retryAfterMs = Math.max(...troubles.map(({ trouble }) => trouble.retryAfterMs));
  const pauseMs = servicePauseMs(settings.intervalMs, pause.failures, retryAfterMs);
  pause.until = settings.now() + pauseMs;
  const reason = troubles.some(({ trouble }) => trouble.reason === 'rate_limited')
    ? 'rate_limited'
    : 'unavailable';
  watch.reporter.emit({ type: 'watcher_paused', reason, pauseMs, failures: pause.failures });
  await Promise.all(
    troubles.map(async ({ entry }) => {
      try {
        await defer(watch, entry, pauseMs);
      } catch (error) {
        watch.reporter.emit({ type: 'watcher_error', stage: 'record', error });
      }
    }),
  );
}

function defer(watch: Watch, entry: PendingEntry, dueInMs: number): Promise<boolean> {
  return watch.settings.journal.deferCheck(entry.idempotencyKey, watch.settings.owner, dueInMs);
}

/** How long until the next lookup of an order created at `createdHere`, on the pass's rhythm. */
function nextCheckIn(watch: Watch, createdHere: number): number {
  const now = watch.settings.now();
  return nextCheckInPass(watch.settings, createdHere, watch.passStartedAt, now) - now;
}

async function expire(watch: Watch, entry: PendingEntry): Promise<void> {
  const { settings } = watch;
  if (await settings.journal.recordExpired(entry.idempotencyKey, settings.owner)) {
    watch.reporter.emit({
      type: 'order_expired',
      orderId: entry.phase === 'watching' ? entry.orderId : null,
    });
    watch.onSettled();
  }
}

async function resendCreate(
  watch: Watch,
  entry: CreatingEntry,
  createdHere: number,
): Promise<ServiceTrouble | undefined> {
  const { settings } = watch;
  let answer: OrderCreateResult;
  try {
    // The key the relay's create used: the service replays that create rather than making a second order.
    answer = await watch.client.orders.create(entry.createBody as unknown as OrderCreateInput, {
      idempotencyKey: entry.serviceKey ?? entry.idempotencyKey,
    });
  } catch (error) {
    const trouble = serviceTroubleOf(error);
    if (trouble) return trouble;
    if (provesNoOrder(error)) {
      // No order exists and none ever will: the shopper saw the refusal too.
      watch.reporter.emit({ type: 'watcher_error', stage: 'resend', error });
      await settings.journal.discardIntent(entry.idempotencyKey);
    } else if (isRefusedForGood(error)) {
      // Not proof that no order exists (a 422: one does, with another body): kept, never dropped, until the bound.
      watch.reporter.emit({ type: 'watcher_error', stage: 'resend', error });
      await defer(watch, entry, settings.intervalMs * 10);
    } else {
      // 409: the first create is still in flight; look again after an interval.
      await defer(watch, entry, settings.intervalMs);
    }
    return undefined;
  }
  const { order } = answer;
  await settings.journal.recordCreated(entry.idempotencyKey, {
    ...serviceReadingOf(order),
    orderId: order.id,
    nextCheckInMs: nextCheckIn(watch, createdHere),
  });
  await announceResent(watch, entry, answer);
  settled(watch, order.id, order.payment.status);
  return undefined;
}

/** `order_created` for an order the watcher's resend created (or replayed): the merchant hears of every order. */
async function announceResent(watch: Watch, entry: CreatingEntry, { order, replayed }: OrderCreateResult) {
  const details = await watch.settings.journal.readOrder({ idempotencyKey: entry.idempotencyKey });
  if (!details) return;
  const customer = (entry.createBody as unknown as Required<OrderCreateInput>).customer_data;
  const amount = chargedAmount(order, details);
  const { idempotencyKey } = entry;
  watch.reporter.emit(
    orderCreatedEvent({ order, replayed, amount, customer, details, idempotencyKey, source: 'watcher' }),
  );
}

async function lookUp(
  watch: Watch,
  entry: Claimed<WatchingEntry>,
  createdHere: number,
): Promise<ServiceTrouble | undefined> {
  const { settings } = watch;
  let reading: ReturnType<typeof serviceReadingOf>;
  try {
    reading = readingOf(await watch.lookups.forWatcher(entry.orderId, watch.client));
  } catch (error) {
    const trouble = serviceTroubleOf(error);
    if (trouble) return trouble;
    if (error instanceof ServiceNotFoundError) {
      if (await settleUnknownOrder(settings, watch.reporter, watch.firstUnknown, entry)) {
        settled(watch, entry.orderId, 'failed');
      }
      return undefined;
    }
    watch.reporter.emit({ type: 'watcher_error', stage: 'record', error });
    // A refusal: the service may be misconfigured; keep the order and look much later.
    await defer(watch, entry, settings.intervalMs * 10);
    return undefined;
  }
  knownAgain(watch.firstUnknown, entry);
  const checked = await settings.journal.recordChecked(entry.idempotencyKey, settings.owner, {
    ...reading,
    nextCheckInMs: nextCheckIn(watch, createdHere),
  });
  if (checked) settled(watch, entry.orderId, reading.paymentStatus);
  return undefined;
}

function settled(watch: Watch, orderId: string, paymentStatus: string): void {
  const outcome = outcomeOfPaymentStatus(paymentStatus);
  if (outcome === null) return;
  watch.reporter.emit({ type: 'order_settled', orderId, outcome, paymentStatus, source: 'watcher' });
  watch.onSettled();
}
