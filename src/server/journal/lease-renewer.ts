/**
 * How a process keeps a claim of the journal's while its work runs: a
 * delivery's lease on a settled order (fulfilment/delivery-lease.ts), a
 * lookup's claim on an order (lookups/journal-sharing.ts). The next renewal
 * comes a period after the last one said whether to go on, so a caller that
 * waits for the journal's answer never has two renewals in flight; a claim
 * the journal says is gone stops renewing. Whether the claim still holds is
 * the caller's to judge (a delivery's lease on elapsed time, lease-stopwatch.ts).
 */
import type { WaitTimers } from '../../shared/answered-within.js';

/** A claim being renewed. */
export interface LeaseRenewer {
  /** Renews no more; a renewal in flight ends unheeded. */
  stop(): void;
}

/**
 * Calls `renew` every `everyMs` on `timers` until stopped, each period from
 * when the last call said whether to go on: `true` (or a promise of it) to
 * go on, `false` to stop. `renew` never rejects.
 */
export function renewEvery(
  timers: WaitTimers,
  everyMs: number,
  renew: () => boolean | Promise<boolean>,
): LeaseRenewer {
  let stopped = false;
  let timer: unknown;
  const next = () => {
    if (!stopped) timer = timers.setTimeout(renewNow, everyMs);
  };
  const renewNow = () => {
    const goOn = renew();
    if (goOn === true) next();
    else if (goOn !== false) void goOn.then((answer) => answer && next());
  };
  next();
  return {
    stop() {
      stopped = true;
      timers.clearTimeout(timer);
    },
  };
}
