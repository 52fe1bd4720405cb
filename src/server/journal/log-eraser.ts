/**
 * Empties SQLite's write-ahead log after a customer's details were dropped.
 * `secure_delete` zeroes what a dropped create body leaves in the file, but
 * the log keeps the earlier page images, body and all, until it is reset. A
 * `TRUNCATE` checkpoint copies the clean pages into the file and cuts the log
 * to zero bytes (the `-shm` index holds page numbers, never rows).
 *
 * Safe beside other connections and processes on the same file: the
 * checkpoint never waits (busy timeout 0 for its one statement), so a reader
 * or writer elsewhere only means the log stays for now, and it is tried again
 * shortly, the same way SQLite's own checkpoints defer to readers.
 */

/** What the eraser needs of a connection (libsql's and better-sqlite3's). */
export interface CheckpointConnection {
  exec(sql: string): unknown;
  prepare(sql: string): { get(...params: never[]): unknown };
}

/** The eraser of one connection. */
export interface LogEraser {
  /** A write dropped a customer's details: empty the log soon. */
  erased(): void;
  /** Empties the log now if a drop is waiting for it (before a claim: before any callback). */
  flush(): void;
  /** Empties the log one last time and stops retrying; throws if the disk refuses. */
  stop(): void;
}

/** How soon after a drop the log is emptied: drops close together share one checkpoint. */
const ERASE_DELAY_MS = 50;
/** Longest wait between tries while other connections keep the log busy or the disk fails. */
const MAX_RETRY_MS = 5_000;

/** The result row of `PRAGMA wal_checkpoint`. */
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** Starts the eraser of `connection`, whose normal busy timeout is `busyTimeoutMs`. */
export function startLogEraser(connection: CheckpointConnection, busyTimeoutMs: number): LogEraser {
  let waiting = false;
  let retries = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const later = (ms: number) => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      tryErase();
    }, ms);
    // A forgotten close() must not keep the process alive for this.
    timer.unref?.();
  };

  function tryErase(): void {
    if (!waiting) return;
    try {
      if (truncateLog(connection, busyTimeoutMs)) {
        waiting = false;
        retries = 0;
        return;
      }
    } catch {
      // The disk refused (read-only, full): the details stay until it takes writes again.
    }
    retries += 1;
    later(Math.min(MAX_RETRY_MS, ERASE_DELAY_MS * 2 ** retries));
  }

  return {
    erased() {
      waiting = true;
      later(ERASE_DELAY_MS);
    },
    flush() {
      if (!waiting) return;
      clearTimeout(timer);
      timer = undefined;
      tryErase();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      waiting = false;
      truncateLog(connection, busyTimeoutMs);
    },
  };
}

/** Folds the log into the file and truncates it, without waiting; `false` if another connection is using it. */
function truncateLog(connection: CheckpointConnection, busyTimeoutMs: number): boolean {
  connection.exec('PRAGMA busy_timeout = 0');
  try {
    const result = connection.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as
      | CheckpointResult
      | undefined;
    return result?.busy === 0;
  } finally {
    connection.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  }
}
