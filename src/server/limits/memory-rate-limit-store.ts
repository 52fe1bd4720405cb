/**
 * The in-memory rate-limit store (one process), bounded without ever letting
 * traffic empty a limit before its time.
 *
 * Each kind of limit (the key's prefix: `create:`, `lookup:`, `prompt:`) has
 * a room of its own, so a flood of one kind cannot crowd out another. An
 * entry is kept exactly as long as it differs from no entry: a bucket until
 * it has refilled to full, a prompt window until its newest slot has left
 * the window. Then it is dropped. A room at its bound refuses a NEW key
 * (`storeFull`) rather than drop a live one: a client or a number whose limit
 * is spent stays limited whatever else arrives.
 */
import {
  type RateLimitDecision,
  type RateLimitStore,
  type SlidingWindowRule,
  type SlidingWindowState,
  type TokenBucketRule,
  type TokenBucketState,
  takeToken,
  takeWindowSlot,
} from './rate-limiter.js';

/** Options of {@link createMemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Live limits kept of each kind (client buckets per route, prompt windows);
   * past it a new client or number is refused until one runs out. Default 10 000.
   */
  maxKeys?: number;
}

/** A store of {@link createMemoryRateLimitStore}: it answers at once, and counts what it holds. */
export interface MemoryRateLimitStore extends RateLimitStore {
  take(key: string, rule: TokenBucketRule, now: number): RateLimitDecision;
  takeSlot(key: string, member: string, rule: SlidingWindowRule, now: number): RateLimitDecision;
  releaseSlot(key: string, member: string): void;
  /** Buckets and windows held now, every kind together. */
  readonly size: number;
}

/** How often, at most, a full room is searched whole for entries that ran out. */
const SWEEP_INTERVAL_MS = 1_000;

/** The shortest wait a refusal at the bound asks for. */
const MIN_FULL_RETRY_MS = 1_000;

interface Entry {
  state: TokenBucketState | SlidingWindowState;
  /** When the entry is the same as none: its bucket full, or its window empty. */
  until: number;
}

/** The live entries of one kind, oldest write first. */
interface Room {
  entries: Map<string, Entry>;
  lastSweep: number;
}

/** The default store: in memory, each kind of limit bounded by `maxKeys` live entries. */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): MemoryRateLimitStore {
  const maxKeys = options.maxKeys ?? 10_000;
  if (!Number.isInteger(maxKeys) || maxKeys < 1) {
    throw new TypeError('createMemoryRateLimitStore: maxKeys is a whole number of at least 1.');
  }
  const rooms = new Map<string, Room>();
  const roomOf = (key: string): Room => {
    const kind = key.slice(0, Math.max(0, key.indexOf(':')));
    let room = rooms.get(kind);
    if (!room) {
      room = { entries: new Map(), lastSweep: Number.NEGATIVE_INFINITY };
      rooms.set(kind, room);
    }
    return room;
  };
  return {
    get size() {
      let size = 0;
      for (const room of rooms.values()) size += room.entries.size;
      return size;
    },
    take(key, rule, now) {
      const room = roomOf(key);
      const current = liveState(room, key, now) as TokenBucketState | undefined;
      if (current === undefined && !hasRoom(room, maxKeys, now)) return refusedFull(room, now);
      const { state, decision } = takeToken(current, rule, now);
      keep(room, key, { state, until: bucketFullAt(state, rule, now) }, now);
      return decision;
    },
    takeSlot(key, member, rule, now) {
      const room = roomOf(key);
      const current = liveState(room, key, now) as SlidingWindowState | undefined;
      if (current === undefined && !hasRoom(room, maxKeys, now)) return refusedFull(room, now);
      const { state, decision } = takeWindowSlot(current, member, rule, now);
      keep(room, key, { state, until: windowEmptyAt(state, rule, now) }, now);
      return decision;
    },
    releaseSlot(key, member) {
      const room = roomOf(key);
      const entry = room.entries.get(key);
      if (!entry) return;
      const state = entry.state as SlidingWindowState;
      state.slots = state.slots.filter(([counted]) => counted !== member);
      if (state.slots.length === 0) room.entries.delete(key);
    },
  };
}

/** The state of `key` while it differs from none; an entry that ran out is dropped here. */
function liveState(room: Room, key: string, now: number): Entry['state'] | undefined {
  const entry = room.entries.get(key);
  if (entry === undefined) return undefined;
  if (entry.until > now) return entry.state;
  room.entries.delete(key);
  return undefined;
}

/** Keeps `entry` as the newest write, or drops it when it is already the same as none. */
function keep(room: Room, key: string, entry: Entry, now: number): void {
  room.entries.delete(key);
  if (entry.until > now) room.entries.set(key, entry);
}

/**
 * True when a new key fits: drops the entries that ran out, oldest first,
 * and searches the whole room at most once a second (a cost an attacker's
 * flood cannot multiply).
 */
function hasRoom(room: Room, maxKeys: number, now: number): boolean {
  if (room.entries.size < maxKeys) return true;
  for (const [key, entry] of room.entries) {
    if (entry.until > now) break;
    room.entries.delete(key);
  }
  if (room.entries.size < maxKeys) return true;
  if (now - room.lastSweep < SWEEP_INTERVAL_MS) return false;
  room.lastSweep = now;
  for (const [key, entry] of room.entries) if (entry.until <= now) room.entries.delete(key);
  return room.entries.size < maxKeys;
}

/** The refusal of a new key at the bound: try again when the oldest entry runs out. */
function refusedFull(room: Room, now: number): RateLimitDecision {
  const oldest = room.entries.values().next().value as Entry | undefined;
  const retryAfterMs = Math.max(MIN_FULL_RETRY_MS, (oldest?.until ?? now) - now);
  return { allowed: false, remaining: 0, retryAfterMs, storeFull: true };
}

/** When a bucket has refilled to its capacity. */
function bucketFullAt(state: TokenBucketState, rule: TokenBucketRule, now: number): number {
  const missing = rule.capacity - state.tokens;
  return missing <= 0 ? now : state.updatedAt + Math.ceil(missing / (rule.refillPerMinute / 60_000));
}

/** When the newest slot of a window leaves it. */
function windowEmptyAt(state: SlidingWindowState, rule: SlidingWindowRule, now: number): number {
  const newest = state.slots[state.slots.length - 1];
  return newest === undefined ? now : newest[1] + rule.windowMinutes * 60_000;
}
