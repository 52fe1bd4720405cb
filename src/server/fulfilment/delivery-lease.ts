/**
 * The lease one process holds on a settled order while its callback runs and
 * while the journal is told the callback returned. Renewed every third of its
 * length; whether it still holds is timed on this process's timers, which
 * count elapsed time whatever its clock says, from the moment each renewal
 * was asked for (the journal granted it later, so the estimate is never long).
 */
import type { FulfilmentSettings, WatchTimers } from './watch-settings.js';

/** A lease held on one order. */
export interface HeldLease {
  /** Whether the lease still holds, as far as this process can tell: renewed within its length, and not lost. */
  holds(): boolean;
  /** Stops renewing; the lease runs out, or a write of the journal's releases it. */
  release(): void;
}

/** Holds the lease on `idempotencyKey`, just claimed by this process, until `release()`. */
export function holdLease(settings: FulfilmentSettings, idempotencyKey: string): HeldLease {
  const { journal, owner, leaseMs } = settings;
  const timers: WatchTimers = settings.deliveryTimers;
  let held = true;
  let released = false;
  let expiry = timers.setTimeout(() => {
    held = false;
  }, leaseMs);
  let renewal: unknown;

  const renew = async () => {
    // Timed from the request: the journal extends the lease from a later moment.
    const nextExpiry = timers.setTimeout(() => {
      held = false;
    }, leaseMs);
    let renewed: boolean | undefined;
    try {
      renewed = await journal.renewLease(idempotencyKey, owner, leaseMs);
    } catch {
      // The journal did not answer: the lease holds until it runs out.
    }
    if (released) {
      timers.clearTimeout(nextExpiry);
      return;
    }
    if (renewed === true) {
      timers.clearTimeout(expiry);
      expiry = nextExpiry;
    } else {
      timers.clearTimeout(nextExpiry);
      // `false`: another process holds it now, or the order was written off by this one.
      if (renewed === false) held = false;
    }
    if (held) schedule();
  };
  const schedule = () => {
    renewal = timers.setTimeout(() => void renew(), leaseMs / 3);
  };
  schedule();

  return {
    holds: () => held,
    release() {
      released = true;
      timers.clearTimeout(renewal);
      timers.clearTimeout(expiry);
    },
  };
}
