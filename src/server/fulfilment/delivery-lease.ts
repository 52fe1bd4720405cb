/**
 * The lease one process holds on a settled order while its callback runs and
 * while the journal is told the callback returned. Renewed every third of its
 * length; whether it still holds is timed on this process's timers, which
 * count elapsed time whatever its clock says, from the moment the claim or
 * each renewal was asked for: the journal granted it later, and a request may
 * wait its turn for a database connection, so the estimate is never long.
 */
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
      return holdLease(settings, idempotencyKey, { isOpen: () => open, leave });
    },
    answered: leave,
  };
}

/** The claim's own window: open until the lease length has passed since the claim was asked for. */
interface ClaimWindow {
  isOpen(): boolean;
  /** This lease no longer reads the window. */
  leave(): void;
}

function holdLease(settings: FulfilmentSettings, idempotencyKey: string, claim: ClaimWindow): HeldLease {
  const { journal, owner, leaseMs } = settings;
  const timers: WatchTimers = settings.deliveryTimers;
  let lost = false;
  let released = false;
  /** `undefined` until the first renewal: the claim's window holds until then. */
  let renewedUntil: { open: boolean; timer: unknown } | undefined;
  let onClaimWindow = true;
  let renewal: unknown;
  const holds = () => !lost && (renewedUntil ? renewedUntil.open : claim.isOpen());
  const leaveClaimWindow = () => {
    if (onClaimWindow) claim.leave();
    onClaimWindow = false;
  };

  const renew = async () => {
    // Timed from the request: the journal extends the lease from a later moment.
    const next = { open: true, timer: undefined as unknown };
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
    if (!released && holds()) schedule();
  };
  const schedule = () => {
    renewal = timers.setTimeout(() => void renew(), leaseMs / 3);
  };
  schedule();

  return {
    holds,
    release() {
      released = true;
      timers.clearTimeout(renewal);
      if (renewedUntil) timers.clearTimeout(renewedUntil.timer);
      leaveClaimWindow();
    },
  };
}
