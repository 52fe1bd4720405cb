/**
 * The sweep for late payments. `onExpired` is the relay's own bound, not the
 * service's: a payer may still approve an order after it. The service tells
 * no one (it sends no webhooks), and an order settled `expired` is no longer
 * looked up, so the fleet pages through the service's orders now and then
 * (`/orders/page`, page 1 the newest, at most 256 a page) and looks for the
 * orders the journal holds as expired (or failed as unknown to the service).
 * One it shows completed is looked up once to confirm (the lookup is the
 * service's word on the payment); paid, it is owed to `onPaid`.
 *
 * The cost is bounded: one process of the fleet sweeps at a time (a lease in
 * the journal), at most once per `sweepIntervalMs`, and only while the
 * journal holds an expired order within the retention period (a sweep that
 * failed counts too: the next waits the interval all the same). A sweep stops
 * at the first short page, once every expired order has been seen, or once
 * its pages are older than the oldest expired order (less an hour for the
 * two clocks): `ceil(orders since then / 256)` page calls, plus one lookup
 * per late payment found.
 */
import type { RelayReporter } from '../events/relay-reporter.js';
import type { CustomersInHand } from '../lookups/customers-in-hand.js';
import { serviceReadingOf } from '../orders/service-reading.js';
import type { ServiceClient } from '../service-client/service-client.js';
import { ServiceNotFoundError } from '../service-client/service-errors.js';
import type { Order, OrderWithPayment } from '../service-client/service-schemas.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** Orders a sweep asks for per page: the most the service gives. */
export const SWEEP_PAGE_SIZE = 256;
/** How long one sweep holds the fleet's lease; a sweep stops itself well within it. */
const SWEEP_LEASE_MS = 10 * 60 * 1000;
/** How far the service's clock and the journal's may disagree: the sweep pages this much further back. */
export const SWEEP_CLOCK_SLACK_MS = 60 * 60 * 1000;
/** Expired orders one sweep looks for at most, oldest first. */
const MAX_EXPIRED_PER_SWEEP = 100_000;
/** Pages one sweep reads at most: 512,000 orders. */
const MAX_PAGES_PER_SWEEP = 2_000;

/** What a sweep needs. */
export interface SweepDeps {
  readonly settings: FulfilmentSettings;
  /** The watcher's client: no retries of its own; a failed call ends the sweep, and the next one tries again. */
  readonly client: ServiceClient;
  readonly reporter: Pick<RelayReporter, 'emit'>;
  /** Where the confirming lookup leaves the order's customer for its delivery. */
  readonly customers?: CustomersInHand;
  /** Called when a late payment was found, so its `onPaid` comes at once. */
  readonly onFound: () => void;
  /** Whether the relay is closing: the sweep stops between two pages. */
  readonly stopped: () => boolean;
}

/** What one sweep did; `undefined` when another process sweeps, or one did within the interval. */
export interface SweepResult {
  /** Page calls made. */
  pages: number;
  /** Lookups made to confirm a payment a page showed. */
  lookups: number;
  /** Late payments found and owed to `onPaid`. */
  found: number;
}

/** Sweeps the service's orders for late payments, if this process's turn has come; never rejects. */
export async function sweepLatePayments(deps: SweepDeps): Promise<SweepResult | undefined> {
  const { settings, reporter } = deps;
  const { journal, owner } = settings;
  try {
    const everyMs = settings.sweepIntervalMs;
    if (!(await journal.claimSweep(owner, { leaseMs: SWEEP_LEASE_MS, everyMs }))) return undefined;
  } catch (error) {
    reporter.emit({ type: 'watcher_error', stage: 'sweep', error });
    return undefined;
  }
  const result: SweepResult = { pages: 0, lookups: 0, found: 0 };
  try {
    await sweep(deps, result);
  } catch (error) {
    // The service or the journal failed: the next sweep tries again, after the interval all the
    // same, so a service that fails every sweep is not paged every minute by the fleet.
    reporter.emit({ type: 'watcher_error', stage: 'sweep', error });
  }
  try {
    await journal.finishSweep(owner, true);
  } catch (error) {
    reporter.emit({ type: 'watcher_error', stage: 'sweep', error });
  }
  return result;
}

/** Pages from the newest orders back to the oldest expired one, and owes `onPaid` for each found paid. */
async function sweep(deps: SweepDeps, result: SweepResult): Promise<void> {
  const { settings, client } = deps;
  const expired = await settings.journal.expiredOrders({
    withinMs: settings.retentionMs,
    limit: MAX_EXPIRED_PER_SWEEP,
  });
  if (expired.length === 0) return;
  const unseen = new Set(expired.map((order) => order.orderId));
  const pagesFrom = (expired[0]?.createdAt ?? 0) - SWEEP_CLOCK_SLACK_MS;
  const startedAt = settings.now();
  for (let pageNumber = 1; pageNumber <= MAX_PAGES_PER_SWEEP; pageNumber++) {
    if (deps.stopped() || settings.now() - startedAt > SWEEP_LEASE_MS / 2) return;
    const { orders } = (await client.orders.page({ pageNumber, pageSize: SWEEP_PAGE_SIZE })).page;
    result.pages += 1;
    for (const order of orders) {
      if (!unseen.delete(order.id) || !looksPaid(order)) continue;
      result.lookups += 1;
      if (await confirmLatePayment(deps, order.id)) result.found += 1;
    }
    const oldest = orders.at(-1);
    // The paging rule: a short page is the last one.
    if (orders.length < SWEEP_PAGE_SIZE || unseen.size === 0 || !oldest) return;
    if (Date.parse(oldest.initiated_at) < pagesFrom) return;
  }
}

/** Whether a page shows `order` completed: its payment may be paid (the lookup says for sure). */
function looksPaid(order: Order): boolean {
  return order.status === 'completed' || order.payment?.status === 'paid';
}

/** Looks `orderId` up; paid, the journal owes `onPaid` for it. Whether it did. */
async function confirmLatePayment(deps: SweepDeps, orderId: string) {
  const { settings, client, reporter, onFound } = deps;
  let order: OrderWithPayment;
  try {
    ({ order } = await client.orders.lookup(orderId));
  } catch (error) {
    // One order the service will not show by id ends nothing: the others are still looked for.
    if (error instanceof ServiceNotFoundError) return false;
    throw error;
  }
  const reading = serviceReadingOf(order);
  if (reading.paymentStatus !== 'paid') return false;
  deps.customers?.keep(orderId, order);
  if (!(await settings.journal.recordLatePayment(orderId, reading, settings.owner))) return false;
  reporter.emit({ type: 'order_paid_late', orderId, source: 'sweep' });
  onFound();
  return true;
}
