/**
 * Elapsed time for leases, read at the moment it matters (just before a
 * delivery starts, before a delivery is marked): on the runtime's monotonic
 * clock, which neither a pause of the process nor a change of the system's
 * time fools, and on the merchant's `clock` when one was given (a test's, moved
 * by hand). A lease holds only while every one of them says so, with a
 * margin: the journal's clock and this process's may run at slightly
 * different rates, and the delivery starts a moment after the check.
 */
import type { FulfilmentSettings } from './watch-settings.js';

/** The elapsed-time clocks' readings at one moment, one per clock. */
export type StopwatchReading = readonly number[];

/** Measures a lease's elapsed time. */
export interface LeaseStopwatch {
  /** Every clock's reading now. */
  read(): StopwatchReading;
  /** Whether less than the lease's usable length has passed since `since`, on every clock. */
  within(since: StopwatchReading): boolean;
}

/** The largest share of a lease kept back as a margin: 1 s, or a tenth of a short lease. */
export const MAX_LEASE_MARGIN_MS = 1_000;

/** How long a lease may be relied on, of `leaseMs`: the margin kept back. */
export function usableLeaseMs(leaseMs: number): number {
  return leaseMs - Math.min(MAX_LEASE_MARGIN_MS, leaseMs / 10);
}

/** The stopwatch of `settings`' leases. */
export function leaseStopwatch(
  settings: Pick<FulfilmentSettings, 'elapsedClocks' | 'leaseMs'>,
): LeaseStopwatch {
  const clocks = settings.elapsedClocks;
  const usableMs = usableLeaseMs(settings.leaseMs);
  const read = () => clocks.map((now) => now());
  return {
    read,
    within(since) {
      const now = read();
      return now.every((reading, index) => reading - (since[index] ?? reading) < usableMs);
    },
  };
}
