/**
 * The journal contract on a real SQLite file, then what only a file can
 * promise: it survives a close, a reopen and a process killed mid-life, and it
 * keeps no customer details on disk once the order is known.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'libsql';
import { type Journal, openJournal } from '../../../src/server/index.js';
import { CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import {
  journalClockContract,
  journalContract,
  keyOf,
  recordIntentOf,
  recordWatchedOrder,
} from '../../fixtures/journal-contract.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-journal-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

/** A journal file path no other test uses, in a folder that does not exist yet. */
function freshPath(): string {
  files += 1;
  return join(scratch, `store-${files}`, 'journal.db');
}

/** Every row, read with the binding directly rather than through the journal. */
function readRows(path: string, table = 'pay_checkout_journal'): Record<string, unknown>[] {
  const connection = new Database(path, { readonly: true });
  try {
    return connection.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
  } finally {
    connection.close();
  }
}

/** Whether the journal's file, its write-ahead log or its shared-memory index holds `text`, byte for byte. */
function filesHold(path: string, text: string): boolean {
  return [path, `${path}-wal`, `${path}-shm`].some(
    (file) => existsSync(file) && readFileSync(file).toString('latin1').includes(text),
  );
}

journalContract('sqlite:', {
  async fresh(clock) {
    const path = freshPath();
    const opened: Journal[] = [];
    const open = async () => {
      const journal = await openJournal(`sqlite:${path}`, { clock });
      opened.push(journal);
      return journal;
    };
    return {
      journal: await open(),
      openAnother: open,
      rawRows: async () => readRows(path),
      dispose: async () => {
        for (const journal of opened) await journal.close();
      },
    };
  },
});

journalClockContract('sqlite:', async () => {
  const path = freshPath();
  const opened: Journal[] = [];
  const open = async () => {
    const journal = await openJournal(`sqlite:${path}`);
    opened.push(journal);
    return journal;
  };
  return {
    journal: await open(),
    openAnother: open,
    // SQLite reads the system clock, as this process does.
    storeNow: async () => Date.now(),
    dispose: async () => {
      for (const journal of opened) await journal.close();
    },
  };
});

const childScript = fileURLToPath(new URL('../../fixtures/journal-child.ts', import.meta.url));

/** A child relay that claims from `url` as owner `owner` once told to go. */
function startClaimer(url: string, owner: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, 'claim', url, String(owner)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
    if (output.startsWith('ready\n')) markReady();
  });
  const claimed = once(child, 'exit').then(() => JSON.parse(output.slice('ready\n'.length)) as string[]);
  return { child, ready, claimed };
}

describe('sqlite: journal on disk', () => {
  it('creates its folder and a file only its user can read', async () => {
    const path = freshPath();
    const journal = await openJournal(`sqlite:${path}`);
    await journal.close();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(path, '..')).mode & 0o777, 0o700);
  });

  it('keeps everything through a close and a reopen', async () => {
    const path = freshPath();
    const first = await openJournal(`sqlite:${path}`);
    await recordWatchedOrder(first, 1);
    await recordIntentOf(first, 2);
    const before = [await first.get(keyOf(1)), await first.get(keyOf(2))];
    await first.close();
    const second = await openJournal(`sqlite:${path}`);
    assert.deepEqual([await second.get(keyOf(1)), await second.get(keyOf(2))], before);
    await second.close();
  });

  it("leaves no customer name or number in the file's bytes once the order is known", async () => {
    const path = freshPath();
    const journal = await openJournal(`sqlite:${path}`);
    for (let n = 1; n <= 5; n += 1) await recordWatchedOrder(journal, n);
    await journal.close();
    // Closing folds the write-ahead log into the file and empties it.
    assert.equal(existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0, 0);
    const bytes = readFileSync(path).toString('latin1');
    assert.equal(bytes.includes('or_5'), true, 'the file is the one written');
    for (const personal of [CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER]) {
      assert.equal(bytes.includes(personal), false, `the file still holds ${personal}`);
    }
  });

  it('keeps no customer name or number in the file, its log or its index while open, beside a reader', async () => {
    const path = freshPath();
    const journal = await openJournal(`sqlite:${path}`);
    const other = await openJournal(`sqlite:${path}`);
    for (let n = 1; n <= 5; n += 1) await recordIntentOf(n % 2 ? journal : other, n);
    // Another connection reads an older state of the file: the log cannot be reset under it.
    const reader = new Database(path);
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM pay_checkout_journal').get();
    for (let n = 1; n <= 5; n += 1) {
      await journal.recordCreated(keyOf(n), { orderId: `or_${n}`, paymentStatus: 'paid', nextCheckInMs: 0 });
    }
    assert.equal(
      (await journal.claimUndelivered('relay-a', { limit: 10, leaseMs: 30_000 })).length,
      5,
      'a claim goes ahead while the reader holds the log',
    );
    assert.equal(filesHold(path, CUSTOMER_NAME), true, 'the log stays while a reader needs it');
    reader.exec('COMMIT');
    // The next claim (before any callback could run) empties the log.
    await journal.claimDue('relay-a', { limit: 10, leaseMs: 30_000 });
    assert.equal(statSync(`${path}-wal`).size, 0, 'the write-ahead log is empty');
    assert.equal(readFileSync(path).toString('latin1').includes('or_5'), true, 'the file is the one written');
    for (const personal of [CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER]) {
      assert.equal(filesHold(path, personal), false, `a file still holds ${personal}`);
    }
    reader.close();
    await other.close();
    await journal.close();
  });

  it('loses nothing committed when the process is killed with SIGKILL', async () => {
    const path = freshPath();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', childScript, 'record-and-hang', `sqlite:${path}`, '7'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8');
    for await (const chunk of child.stdout) {
      output += chunk;
      if (output.includes('committed')) break;
    }
    child.kill('SIGKILL');
    const [, signal] = await once(child, 'exit');
    assert.equal(signal, 'SIGKILL');
    const journal = await openJournal(`sqlite:${path}`);
    const entry = await journal.get(keyOf(7));
    assert.equal(entry?.phase === 'watching' && entry.orderId, 'or_7');
    await journal.close();
  });

  it('gives two processes claiming from one file at once disjoint sets, and leaves none out', async () => {
    const path = freshPath();
    const journal = await openJournal(`sqlite:${path}`);
    for (let n = 0; n < 200; n += 1) await recordWatchedOrder(journal, n, { nextCheckInMs: 0 });
    await journal.close();
    const claimers = [1, 2].map((owner) => startClaimer(`sqlite:${path}`, owner));
    // Both wait at "ready" until both are: then they claim at the same time.
    await Promise.all(claimers.map((claimer) => claimer.ready));
    for (const { child } of claimers) child.stdin.end('go\n');
    const [first = [], second = []] = await Promise.all(claimers.map((claimer) => claimer.claimed));
    assert.deepEqual(
      first.filter((key) => second.includes(key)),
      [],
    );
    assert.equal(first.length + second.length, 200);
  });

  it('migrates once, however often it is opened', async () => {
    const path = freshPath();
    for (let opening = 0; opening < 3; opening += 1) await (await openJournal(`sqlite:${path}`)).close();
    const versions = readRows(path, 'pay_checkout_journal_migrations').map((row) => row.version);
    assert.deepEqual(versions, [1, 2, 3, 4, 5, 6, 7]);
  });

  it('refuses a journal migrated by a newer pay-checkout', async () => {
    const path = freshPath();
    await (await openJournal(`sqlite:${path}`)).close();
    const connection = new Database(path);
    connection
      .prepare('INSERT INTO pay_checkout_journal_migrations VALUES (99, ?, 0)')
      .run('from the future');
    connection.close();
    await assert.rejects(openJournal(`sqlite:${path}`), /version 99, newer than this pay-checkout knows/);
  });

  it('takes a relative path from the working directory', async () => {
    const relative = join('.tmp', `journal-test-${process.pid}`, 'journal.db');
    try {
      const journal = await openJournal(`sqlite:${relative}`);
      await journal.close();
      assert.equal(existsSync(join(process.cwd(), relative)), true);
    } finally {
      rmSync(join(process.cwd(), '.tmp', `journal-test-${process.pid}`), { recursive: true, force: true });
    }
  });
});
