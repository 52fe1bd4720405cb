/**
 * Idempotency records. A key is scoped to the API
 * key that sent it. A record is created in flight, synchronously, in the same
 * turn of the event loop that read the body, so any number of concurrent
 * requests with one key start the work exactly once. Records expire after the
 * retention time, judged by the sandbox's clock, and the oldest go first past
 * the cap.
 */

/** An answer kept to be replayed. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/** What an earlier request with the same key says about this one. */
export type IdempotencyCheck =
  | { kind: 'absent' }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'in_flight' }
  | { kind: 'reused_with_other_body' };

/** A claim on a key while its request runs: complete it with the answer, or release it on failure. */
export interface IdempotencyReservation {
  complete(answer: StoredAnswer): void;
  release(): void;
}

interface IdempotencyRecord {
  fingerprint: string;
  createdAt: number;
  answer: StoredAnswer | undefined;
}

/** Idempotency records, capped and expiring. */
export class IdempotencyStore {
  readonly #records = new Map<string, IdempotencyRecord>();
  readonly #maxRecords: number;
  readonly #retentionMs: number;

  constructor(maxRecords: number, retentionMs: number) {
    if (!Number.isSafeInteger(maxRecords) || maxRecords < 1) {
      throw new RangeError('maxIdempotencyRecords must be a whole number of at least 1.');
    }
    this.#maxRecords = maxRecords;
    this.#retentionMs = retentionMs;
  }

  /** Records held now. */
  get size(): number {
    return this.#records.size;
  }

  /** Compares a request with the earlier one under the same scoped key. */
  check(scope: string, key: string, fingerprint: string, now: number): IdempotencyCheck {
    const id = recordId(scope, key);
    const record = this.#records.get(id);
    if (!record) return { kind: 'absent' };
    if (now - record.createdAt >= this.#retentionMs) {
      this.#records.delete(id);
      return { kind: 'absent' };
    }
    if (record.fingerprint !== fingerprint) return { kind: 'reused_with_other_body' };
    return record.answer ? { kind: 'replay', answer: record.answer } : { kind: 'in_flight' };
  }

  /**
   * Marks the key in flight. Call only after {@link check} said `absent`, with
   * no `await` in between, so no other request can slip in.
   */
  reserve(scope: string, key: string, fingerprint: string, now: number): IdempotencyReservation {
    const id = recordId(scope, key);
    const record: IdempotencyRecord = { fingerprint, createdAt: now, answer: undefined };
    this.#records.set(id, record);
    this.#forgetExpiredAndExcess(now);
    return {
      complete: (answer) => {
        record.answer = answer;
      },
      release: () => {
        if (this.#records.get(id) === record) this.#records.delete(id);
      },
    };
  }

  // Records are in creation order, so the expired ones are at the front.
  #forgetExpiredAndExcess(now: number): void {
    for (const [id, record] of this.#records) {
      const expired = now - record.createdAt >= this.#retentionMs;
      if (!expired && this.#records.size <= this.#maxRecords) break;
      this.#records.delete(id);
    }
  }
}

function recordId(scope: string, key: string): string {
  return `${scope}\n${key}`;
}

/**
 * A fingerprint of a request body that ignores key order and spacing: two
 * 32-bit FNV-1a hashes of its canonical JSON, with its length. Comparing
 * fingerprints rather than bodies keeps 100,000 records small.
 */
export function requestFingerprint(path: string, body: unknown): string {
  const canonical = `${path}\n${canonicalJson(body)}`;
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ canonical.length;
  for (let index = 0; index < canonical.length; index++) {
    const code = canonical.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995);
    second ^= second >>> 15;
  }
  return `${canonical.length.toString(36)}.${(first >>> 0).toString(36)}.${(second >>> 0).toString(36)}`;
}

/** JSON with object keys sorted at every depth: equal for bodies that differ only in key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
