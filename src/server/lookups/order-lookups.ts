/**
 * One service lookup per order, whoever asks: browser tabs and
 * the watcher share it. In a process, one call per order is in flight and
 * every lookup of that order meanwhile waits for it; a read within the last
 * 2 s answers without a call. With a journal, the fleet shares the same way:
 * a status any process read within 2 s answers, and a stale one is claimed
 * by one lookup only, which also moves the watcher's next check of the order
 * so the two do not both call. Only statuses are shared, never the service's
 * order with its customer.
 *
 * Fresh enough for a shopper: a browser's lookup is answered by a read that
 * began at most 1 s before it (or a final one). One older than that waits
 * for the next read, which the 2 s spacing allows within 1 s; so a payment
 * approved while a tab polls reaches it within its poll interval and 1 s.
 */
import { timedWait } from '../../shared/answered-within.js';
import type { Clock } from '../../shared/clock.js';
import { classifyPaymentStatus } from '../../shared/service-contract.js';
import type { RelayReporter } from '../events/relay-reporter.js';
import {
  type LookupJournal,
  type SharedLookup,
  type StoredLookup,
  sameStatuses,
} from '../journal/lookup-journal.js';
import {
  type OrderStatusRead,
  statusesOf,
  statusReadFromJournal,
  statusReadOf,
} from '../orders/order-status-read.js';
import { lookupOrderStatuses, type ServiceClient } from '../service-client/service-client.js';
import type { CustomersInHand } from './customers-in-hand.js';
import { type JournalDeadline, journalDeadline, whileLookupClaimed } from './journal-sharing.js';
import { createRecentReads, type RecentRead, type RecentReads } from './recent-reads.js';

/** A status read this recently answers every lookup of the order: the service sees at most one per 2 s. */
export const LOOKUP_SHARING_MS = 2_000;
/** A browser's lookup is answered by a read that began at most this long before it, or by the next one. */
export const BROWSER_READ_AGE_MS = 1_000;

/** The lookups of one relay process. */
export interface OrderLookups {
  /**
   * A browser's lookup: a shared call, a status read within 2 s, or the
   * journal's; the journal is waited for within `deadline` (by default 1.5 s
   * from now) in all. Rejects as the call does.
   */
  forBrowser(orderId: string, deadline?: JournalDeadline): Promise<OrderStatusRead>;
  /**
   * The watcher's lookup of an order whose lease it holds (the lease is its
   * claim, so the journal is not asked first), through its own `client`;
   * shares a call in flight or a read within 2 s in this process.
   */
  forWatcher(orderId: string, client: ServiceClient): Promise<OrderStatusRead>;
}

/** The journal the lookups share through, and what they need around it. */
export interface SharedLookupJournal {
  readonly journal: LookupJournal;
  /** Where the watcher's reads are kept: the journal on the watcher's own connections. */
  readonly watcherJournal?: LookupJournal;
  /** The watcher's interval: a browser's lookup puts the watcher's next one at least this far off. */
  readonly intervalMs: number;
  /** Keeps the relay's `close()` waiting for a journal write. */
  readonly track: <T>(work: Promise<T>) => Promise<T>;
}

/** What the lookups need. */
export interface OrderLookupsDeps {
  /** The browser's service client. */
  readonly client: ServiceClient;
  /** The relay's clock, for this process's recent reads and a browser's wait for the next read; the journal keeps its own time. */
  readonly clock: Clock;
  readonly reporter: Pick<RelayReporter, 'emit'>;
  /** With a journal, lookups are shared across every process on it. */
  readonly shared?: SharedLookupJournal | undefined;
  /** Where a lookup that sees an order settle leaves its customer for the delivery. */
  readonly customers?: CustomersInHand | undefined;
}

/** Creates the lookups of one relay process. */
export function createOrderLookups(deps: OrderLookupsDeps): OrderLookups {
  const { clock, shared } = deps;
  const now = () => clock.now();
  const recent = createRecentReads();
  const inFlight = new Map<string, Promise<RecentRead>>();

  /** A read that still answers for `orderId`, the call in flight for it, or a new one that `read` makes. */
  const once = (orderId: string, read: () => Promise<RecentRead>) =>
    readOnce({ recent, inFlight, now: now() }, orderId, read);

  /**
   * Calls the service and keeps the read here. With a journal, the read is
   * kept there too (`record`): always for the watcher, whose lease was its
   * claim; for a claimed browser lookup only when it differs from `kept`,
   * since its claim already keeps the others away, and they answer `kept`.
   */
  async function callService(
    orderId: string,
    client: ServiceClient,
    record: 'always' | 'when changed' | 'never',
    kept?: StoredLookup,
  ): Promise<RecentRead> {
    const readAt = now();
    const { order } = await lookupOrderStatuses(client, orderId);
    const read = statusReadOf(order);
    if (classifyPaymentStatus(read.payment.status) !== 'pending') deps.customers?.keep(orderId, order);
    recent.remember(orderId, read, readAt, now());
    const statuses = shared && record !== 'never' ? statusesOf(read) : undefined;
    const changed = record === 'always' || !kept || !statuses || !sameStatuses(kept.statuses, statuses);
    if (shared && statuses && changed) {
      const lookup = { statuses, sinceReadMs: Math.max(0, now() - readAt) };
      // Kept for the others without holding up this answer; a failure is reported.
      const journal = record === 'always' ? (shared.watcherJournal ?? shared.journal) : shared.journal;
      void quietly(shared.track(journal.recordLookup(orderId, lookup)));
    }
    return { read, readAt };
  }

  async function browserRead(orderId: string, deadline: JournalDeadline): Promise<RecentRead> {
    if (!shared) return callService(orderId, deps.client, 'never');
    const sharing = { freshMs: LOOKUP_SHARING_MS, watchAgainInMs: shared.intervalMs };
    const outcome = await quietly(
      deadline.within(shared.track(shared.journal.shareLookup(orderId, sharing))),
    );
    const known = answerFrom(outcome, now());
    if (known) {
      recent.remember(orderId, known.read, known.readAt, now());
      return known;
    }
    // Unknown to the journal, or the journal failed or is slow: a plain call.
    if (outcome?.kind !== 'claimed') return callService(orderId, deps.client, 'never');
    // Claimed: this is the fleet's one lookup, and the claim holds while the call lasts.
    return whileLookupClaimed(clock, shared.journal, orderId, reportJournalFailure, () =>
      callService(orderId, deps.client, 'when changed', outcome.stored),
    );
  }

  /** A browser's lookup: a read that began at most 1 s before it, or the next one (within 1 s). */
  async function forBrowser(orderId: string, deadline = journalDeadline(clock)): Promise<OrderStatusRead> {
    const askedAt = now();
    const first = await once(orderId, () => browserRead(orderId, deadline));
    if (isFreshFor(first, askedAt, now())) return first.read;
    await untilNextReadMay(clock, first);
    return (await once(orderId, () => browserRead(orderId, deadline))).read;
  }

  const reportJournalFailure = journalFailureReporter(deps.reporter);
  /** Swallows a journal failure (reported): lookups then go to the service as without a journal. */
  const quietly = <T>(work: Promise<T>) => withoutJournalFailure(work, reportJournalFailure);

  return {
    forBrowser,
    forWatcher: async (orderId, client) =>
      (await once(orderId, () => callService(orderId, client, 'always'))).read,
  };
}

/** A read in `recent` that still answers `now`, the call in `inFlight` for `orderId`, or a new one that `read` makes. */
function readOnce(
  { recent, inFlight, now }: { recent: RecentReads; inFlight: Map<string, Promise<RecentRead>>; now: number },
  orderId: string,
  read: () => Promise<RecentRead>,
): Promise<RecentRead> {
  const recentRead = recent.get(orderId);
  if (recentRead && isStillTrue(recentRead, now)) return Promise.resolve(recentRead);
  let call = inFlight.get(orderId);
  if (call === undefined) {
    call = read().finally(() => inFlight.delete(orderId));
    inFlight.set(orderId, call);
  }
  return call;
}

/** Resolves once the read after `read` may begin, 2 s after it: at most 1 s from now, since it began over 1 s ago. */
function untilNextReadMay(clock: Clock, { readAt }: RecentRead): Promise<void> {
  const waitMs = Math.min(BROWSER_READ_AGE_MS, readAt + LOOKUP_SHARING_MS - clock.now());
  return waitMs > 0 ? timedWait(clock, waitMs, () => undefined) : Promise.resolve();
}

/** Reports a journal failure of a lookup through `onEvent`: lookups then go to the service as without one. */
function journalFailureReporter(reporter: Pick<RelayReporter, 'emit'>): (error: unknown) => void {
  return (error) => reporter.emit({ type: 'watcher_error', stage: 'browser_lookup', error });
}

/** `work`'s value, or `undefined` when the journal failed (reported: lookups then go to the service). */
async function withoutJournalFailure<T>(
  work: Promise<T>,
  report: (error: unknown) => void,
): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    report(error);
    return undefined;
  }
}

/**
 * True when a read answers a browser's lookup asked at `askedAt`: final, or
 * begun at most 1 s before it. A read "from the future" (the clock was set
 * back since) is stale: it would otherwise answer for as long as the step.
 */
function isFreshFor({ read, readAt }: RecentRead, askedAt: number, now: number): boolean {
  const recent = readAt >= askedAt - BROWSER_READ_AGE_MS && readAt <= now;
  return recent || classifyPaymentStatus(read.payment.status) !== 'pending';
}

/** True when a read answers now: it began within the sharing window (not after now), or its payment is final. */
function isStillTrue({ read, readAt }: RecentRead, now: number): boolean {
  const ageMs = now - readAt;
  return (
    (ageMs >= 0 && ageMs < LOOKUP_SHARING_MS) || classifyPaymentStatus(read.payment.status) !== 'pending'
  );
}

/**
 * The read a journal's answer gives without a call: a fresh status, or the
 * last one while another lookup is in flight; read its age before `now` on
 * this process's clock.
 */
function answerFrom(outcome: SharedLookup | undefined, now: number): RecentRead | undefined {
  if (outcome?.kind !== 'fresh' && outcome?.kind !== 'taken') return undefined;
  const { stored } = outcome;
  return stored && { read: statusReadFromJournal(stored.statuses), readAt: now - stored.ageMs };
}
