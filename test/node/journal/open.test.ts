/**
 * `openJournal(url)`: which store each URL opens, which driver it loads (and
 * which it does not), and errors that name the fix without quoting the URL,
 * which may hold a password.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JournalDriverMissingError, openJournal } from '../../../src/server/index.js';
import { importDriver } from '../../../src/server/journal/open-journal.js';
import { keyOf, recordWatchedOrder } from '../../fixtures/journal-contract.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-open-journal-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const childScript = fileURLToPath(new URL('../../fixtures/journal-child.ts', import.meta.url));

function driversLoadedFor(url: string): string[] {
  const output = execFileSync(process.execPath, ['--import', 'tsx', childScript, 'drivers', url], {
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[];
}

describe('openJournal', () => {
  it('opens a fresh memory journal for every memory: URL', async () => {
    const first = await openJournal('memory:');
    const second = await openJournal('memory:');
    await recordWatchedOrder(first, 1);
    assert.equal((await first.get(keyOf(1)))?.phase, 'watching');
    assert.equal(await second.get(keyOf(1)), undefined);
    await first.close();
    await assert.rejects(first.get(keyOf(1)), /closed/);
  });

  it('loads no database driver for memory:, and only libsql for sqlite:', () => {
    assert.deepEqual(driversLoadedFor('memory:'), []);
    assert.deepEqual(driversLoadedFor(`sqlite:${join(scratch, 'drivers.db')}`), ['libsql']);
  });

  it('imports nothing from Node until a SQLite journal is opened (pay-checkout/server runs on edge runtimes)', () => {
    const folder = fileURLToPath(new URL('../../../src/server/journal/', import.meta.url));
    const portable = readdirSync(folder).filter(
      (name) => name.endsWith('.ts') && name !== 'sqlite-journal.ts',
    );
    for (const name of portable) {
      const source = readFileSync(join(folder, name), 'utf8');
      assert.doesNotMatch(source, /^import (?!type )[^;]*from 'node:/m, `${name} imports a Node module`);
    }
  });

  it('refuses an unknown scheme without quoting the URL', async () => {
    const url = 'mysql://shop:hunter2@db.internal/shop';
    const error = await openJournal(url).catch((caught: unknown) => caught);
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /memory:, sqlite:<path> or postgres:/);
    assert.equal(error.message.includes('hunter2'), false);
  });

  it('asks for a file after sqlite:', async () => {
    await assert.rejects(openJournal('sqlite:'), /sqlite:<path>/);
  });

  it('names the package to install when a driver is missing', async () => {
    const error = await importDriver('pay-checkout-no-such-driver', 'sqlite:').catch(
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof JournalDriverMissingError);
    assert.equal(error.packageName, 'pay-checkout-no-such-driver');
    assert.equal(
      error.message,
      'A sqlite: journal needs the pay-checkout-no-such-driver package: npm install pay-checkout-no-such-driver',
    );
  });

  it('reports an unreachable PostgreSQL without its password', async () => {
    const error = await openJournal('postgres://shop:hunter2@127.0.0.1:1/shop').catch(
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof Error);
    assert.equal(String(error.message).includes('hunter2'), false);
    assert.equal(String(error.stack).includes('hunter2'), false);
  });
});
