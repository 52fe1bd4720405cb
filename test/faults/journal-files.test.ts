/**
 * No customer name or number in any of the journal's files once the order is
 * known (SQLite's write-ahead log included). A relay process on
 * an SQLite journal takes five orders to delivery and is killed with SIGKILL,
 * so nothing is folded in on the way out; then the bytes of the file, its
 * write-ahead log and its shared-memory index are read as they lie on disk.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER } from '../fixtures/checkout-data.js';
import {
  createdOrders,
  linesOf,
  scratchFiles,
  servedSandbox,
  startDeliveryChild,
  waitUntil,
} from '../fixtures/delivery-faults.js';

const ORDERS = 5;

describe("the SQLite journal's files after delivery", () => {
  it("hold no customer's name or number, in the file, its log or its index, though the process was killed", {
    timeout: 120_000,
  }, async (t) => {
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder, callsFile } = scratchFiles();
    const path = join(folder, 'journal.db');
    const shop = startDeliveryChild({
      name: 'shop',
      journalUrl: `sqlite:${path}`,
      baseUrl: url,
      callsFile,
      orders: { from: 0, to: ORDERS - 1 },
      watch: { intervalMs: 2_000 },
    });
    assert.ok(await shop.waitFor('created-all', 60_000), 'the orders were created');
    const delivered = await waitUntil(() => linesOf([shop], 'delivered ').length === ORDERS, 60_000);
    await shop.kill();
    assert.ok(delivered, 'every order was delivered');

    const files = [path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file));
    const bytes = new Map(files.map((file) => [file, readFileSync(file).toString('latin1')]));
    t.diagnostic(files.map((file) => `${file.slice(folder.length + 1)} ${statSync(file).size} B`).join(', '));
    const lastOrder = createdOrders(shop).get(ORDERS - 1) as string;
    assert.ok(
      [...bytes.values()].some((content) => content.includes(lastOrder)),
      'the files are the ones written',
    );
    for (const [file, content] of bytes) {
      for (const personal of [CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER]) {
        assert.equal(content.includes(personal), false, `${file} still holds ${personal}`);
      }
    }
  });
});
