/**
 * The reads of this process's recent lookups, per order, bounded: a lookup
 * whose order was read within the sharing window answers from here without
 * a call (and, with a journal, without a query). Past its bound it forgets
 * the orders read longest ago, a hundredth at a time.
 */
import type { OrderStatusRead } from '../orders/order-status-read.js';

/** One order's latest read and when its lookup began (the relay's clock). */
export interface RecentRead {
  read: OrderStatusRead;
  readAt: number;
}

/** Orders remembered at most unless told otherwise: a few hundred bytes each. */
export const DEFAULT_RECENT_READS = 10_000;

/** The recent reads of one relay process. */
export interface RecentReads {
  get(orderId: string): RecentRead | undefined;
  /** Keeps `read`, begun at `readAt`, unless a later one is kept already (one begun after `now`, the clock set back since, is not). */
  remember(orderId: string, read: OrderStatusRead, readAt: number, now: number): void;
  readonly size: number;
}

/** Recent reads, at most `limit` orders. */
export function createRecentReads(limit = DEFAULT_RECENT_READS): RecentReads {
  const reads = new Map<string, RecentRead>();
  return {
    get: (orderId) => reads.get(orderId),
    remember(orderId, read, readAt, now) {
      const kept = reads.get(orderId);
      if (kept && kept.readAt > readAt && kept.readAt <= now) return;
      // Deleted and set again, so the Map's first keys are the orders read longest ago.
      if (kept) reads.delete(orderId);
      else if (reads.size >= limit) dropOldest(reads, Math.ceil(limit / 100));
      reads.set(orderId, { read, readAt });
    },
    get size() {
      return reads.size;
    },
  };
}

/** Drops the `count` oldest entries in one pass (one at a time, each would walk past the holes before it). */
function dropOldest(map: Map<string, unknown>, count: number): void {
  for (const key of map.keys()) {
    if (count-- <= 0) return;
    map.delete(key);
  }
}
