/**
 * The lease one process holds on a settled order while its target (the
 * merchant's callback) takes it and while the journal is told it did.
 * Renewed every third of its length (lease-renewer.ts). Whether it still
 * holds is measured by elapsed time, read when it is asked
 * (lease-stopwatch.ts), from the moment the claim or the last granted renewal
 * was asked for: the journal granted it later, and a request may wait its
 * turn for a database connection, so the estimate is never long. A timer
 * alone would not do: a process paused (SIGSTOP, a stalled VM) runs its late
 * timers only after the work that was waiting, and would start a delivery on
 * a lease another process holds by then. The timers end the lease early too,
 * when they fire first.
 */
import { renewEvery } from '../journal/lease-renewer.js';
import { type LeaseStopwatch, leaseStopwatch, type StopwatchReading } from './lease-stopwatch.js';
import type { FulfilmentSettings, WatchTimers } from './watch-settings.js';

/** A lease held on one order. */
export interface HeldLease {
  /** Whether the lease still holds, as far as this process can tell: renewed within its length, and not lost. */
  holds(): boolean;
  /** Stops renewing; the lease runs out, or a write of the journal's releases it. */
  release(): void;
}

/**
 * The leases one claim grants, timed from before the claim was asked for.
 * Call `lease(key)` for each order the claim returned, then `answered()`.
 */
export interface ClaimedLeases {
  lease(idempotencyKey: string): HeldLease;
  /** The claim has answered (or failed): no more leases come from it. */
  answered(): void;
}

/** Starts timing the leases of a claim about to be asked for. */
export function claimLeases(settings: FulfilmentSettings): ClaimedLeases {
  const timers: WatchTimers = settings.deliveryTimers;
  const stopwatch = leaseStopwatch(settings);
  const askedAt = stopwatch.read();
  let open = true;
  // The claim itself, and each lease until its first renewal or release, count on this window.
  let waiting = 1;
  const window = timers.setTimeout(() => {
    open = false;
  }, settings.leaseMs);
  const leave = () => {
    waiting -= 1;
    if (waiting === 0) timers.clearTimeout(window);
  };
  return {
    lease(idempotencyKey) {
      waiting += 1;
      return holdLease(settings, stopwatch, idempotencyKey, { askedAt, isOpen: () => open, leave });
    },
    answered: leave,
  };
}

/** The claim's own window: open until the lease length has passed since the claim was asked for. */
interface ClaimWindow {
  /** When the claim was asked for. */
  readonly askedAt: StopwatchReading;
  /** Whether the claim's timer has not yet fired. */
  isOpen(): boolean;
  /** This lease no longer reads the window. */
  leave(): void;
}

/** A span the lease is granted for: from when it was asked, until its timer fires (if first). */
interface Grant {
  readonly askedAt: StopwatchReading;
  open: boolean;
  timer: unknown;
}

function holdLease(
  settings: FulfilmentSettings,
  stopwatch: LeaseStopwatch,
  idempotencyKey: string,
  claim: ClaimWindow,
): HeldLease {
  const { journal, owner, leaseMs } = settings;
  const timers: WatchTimers = settings.deliveryTimers;
  let lost = false;
  let released = false;
  /** `undefined` until the first renewal: the claim's window holds until then. */
  let renewedUntil: Grant | undefined;
  let onClaimWindow = true;
  const holds = () => {
    if (lost) return false;
    const askedAt = renewedUntil ? renewedUntil.askedAt : claim.askedAt;
    const timerOpen = renewedUntil ? renewedUntil.open : claim.isOpen();
    return timerOpen && stopwatch.within(askedAt);
  };
  const leaveClaimWindow = () => {
    if (onClaimWindow) claim.leave();
    onClaimWindow = false;
  };

  const renew = async () => {
    // Timed from the request: the journal extends the lease from a later moment.
    const next: Grant = { askedAt: stopwatch.read(), open: true, timer: undefined };
    next.timer = timers.setTimeout(() => {
      next.open = false;
    }, leaseMs);
    let renewed: boolean | undefined;
    try {
      renewed = await journal.renewLease(idempotencyKey, owner, leaseMs);
    } catch {
      // The journal did not answer: the lease holds until it runs out.
    }
    if (released || renewed !== true || !holds()) {
      timers.clearTimeout(next.timer);
      // `false`: another process holds it now, or the order was written off by this one.
      // A renewal granted after the lease had run out here may follow another process's claim: lost too.
      if (renewed === false || (renewed === true && !holds())) lost = true;
    } else {
      if (renewedUntil) timers.clearTimeout(renewedUntil.timer);
      renewedUntil = next;
      leaveClaimWindow();
    }
    return !released && holds();
  };
  const renewer = renewEvery(timers, leaseMs / 3, renew);

  return {
    holds,
    release() {
      released = true;
      renewer.stop();
      if (renewedUntil) timers.clearTimeout(renewedUntil.timer);
      leaveClaimWindow();
    },
  };
}
