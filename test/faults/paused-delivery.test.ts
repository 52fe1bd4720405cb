/**
 * A relay paused inside a delivery past its lease (contract: a callback is
 * never started on a lease that has run out, measured by elapsed time). Two
 * relay processes share one SQLite journal. The first claims a paid order's
 * delivery and, on the last step before its callback, is held busy and then
 * stopped with SIGSTOP; the second takes the order once the lease has run
 * out in the journal and delivers it. The first is then let go and resumed
 * with SIGCONT: its delivery goes on at once, before its timers run, and must
 * see by the time elapsed that its lease is gone. The order is delivered once.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  createdOrders,
  linesOf,
  readCalls,
  scratchFiles,
  servedSandbox,
  startDeliveryChild,
} from '../fixtures/delivery-faults.js';

const LEASE_MS = 3_000;

describe('a relay paused inside a delivery', {
  skip: process.platform === 'win32' && 'needs SIGSTOP',
}, () => {
  it('starts no callback once its lease ran out while it was stopped: the order is delivered once', {
    timeout: 120_000,
  }, async () => {
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder, callsFile } = scratchFiles();
    const goFile = join(folder, 'go');
    const base = {
      journalUrl: `sqlite:${join(folder, 'journal.db')}`,
      baseUrl: url,
      callsFile,
      watch: { intervalMs: 2_000, leaseMs: LEASE_MS },
    };
    const paused = startDeliveryChild({
      ...base,
      name: 'paused',
      orders: { from: 0, to: 0 },
      stallBeforeCallback: goFile,
    });
    try {
      assert.ok(await paused.waitFor('stalled ', 60_000), 'the first relay claimed the delivery');
      paused.process.kill('SIGSTOP');
      const orderId = createdOrders(paused).get(0) as string;

      // Started only now, so the first relay's claim came first.
      const other = startDeliveryChild({ ...base, name: 'other' });
      assert.ok(
        await other.waitFor(`delivered ${orderId}`, 60_000),
        'the other relay delivered the order once the lease ran out',
      );

      writeFileSync(goFile, '');
      paused.process.kill('SIGCONT');
      assert.ok(
        await paused.waitFor(`lease-lost ${orderId}`, 30_000),
        'the resumed relay found its lease gone',
      );
      const calls = readCalls(callsFile).filter((call) => call.orderId === orderId);
      assert.deepEqual(
        calls.map((call) => call.name),
        ['other'],
        'onPaid ran once, in the relay that held the lease',
      );
      assert.deepEqual(linesOf([paused], 'entered '), [], 'no callback started in the paused relay');
    } finally {
      paused.process.kill('SIGCONT');
    }
  });
});
