/**
 * The demo's merchant server hears of payments (contract §5, §6): an order
 * whose page never polls is delivered to the demo's `onPaid` and shown by
 * `GET /api/demo/fulfilments` (order ids and statuses only); `npm start`'s
 * command keeps its journal in the SQLite file `PAY_JOURNAL_URL` names and
 * closes it on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { DemoFulfilments } from '../../demo/demo-config.js';
import { startDemoServer } from '../../demo/server/start-demo-server.js';
import { type FulfilledOrder, openJournal } from '../../src/server/index.js';
import { CUSTOMER_NAME } from '../fixtures/checkout-data.js';
import { eventually } from '../fixtures/wait.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-demo-fulfilment-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

async function createOrder(url: string): Promise<string> {
  const response = await fetch(`${url}/api/checkout/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({
      customer_data: { name: CUSTOMER_NAME, phone_number: '+233241234567' },
      payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '0241234567' } },
      cart: { items: [{ product_id: 'kente-tote', quantity: 1 }] },
    }),
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { order: { id: string } }).order.id;
}

async function fulfilments(url: string): Promise<{ response: Response; body: DemoFulfilments }> {
  const response = await fetch(`${url}/api/demo/fulfilments`);
  return { response, body: (await response.clone().json()) as DemoFulfilments };
}

/** The order's fulfilment once the demo lists it delivered (the watcher runs on real timers). */
function delivered(url: string, orderId: string) {
  return eventually(
    `order ${orderId} to be delivered`,
    async () => {
      const found = (await fulfilments(url)).body.fulfilments.find((f) => f.order_id === orderId);
      return found?.delivered_at ? found : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250 },
  );
}

describe('the demo merchant server', () => {
  it('delivers an order whose page never polls to onPaid and lists it by id and status only', async () => {
    const heard: FulfilledOrder[] = [];
    const server = await startDemoServer({
      pageRoot: E2E_PAGE_ROOT,
      sandboxApproveAfterMs: 300,
      onFulfilled: (order) => {
        heard.push(order);
      },
    });
    after(() => server.close());
    const orderId = await createOrder(server.url);
    const pending = await fulfilments(server.url);
    assert.equal(pending.response.headers.get('cache-control'), 'no-store');
    assert.deepEqual(pending.body.fulfilments, [
      { order_id: orderId, status: 'pending', delivered_at: null },
    ]);
    const fulfilment = await delivered(server.url, orderId);
    assert.equal(fulfilment.status, 'paid');
    assert.match(fulfilment.delivered_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      heard.map((order) => [order.id, order.outcome]),
      [[orderId, 'paid']],
    );
    const text = await (await fetch(`${server.url}/api/demo/fulfilments`)).text();
    assert.ok(!text.includes(CUSTOMER_NAME) && !text.includes('241234567'), 'no customer data');
    const post = await fetch(`${server.url}/api/demo/fulfilments`, { method: 'POST' });
    assert.equal(post.status, 405);
  });

  it('npm start keeps its journal in PAY_JOURNAL_URL and closes it on SIGTERM', async () => {
    const path = join(scratch, 'journal.db');
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        PAY_DEMO_PAGE_ROOT: E2E_PAGE_ROOT,
        PAY_SANDBOX_APPROVE_MS: '300',
        PAY_JOURNAL_URL: `sqlite:${path}`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    after(() => child.kill('SIGKILL'));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const url = await eventually(
      () => `the demo to print its URL; it printed:\n${output}`,
      () => /pay-checkout demo\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1],
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    assert.match(output, /order journal\s+sqlite:/);
    const orderId = await createOrder(url);
    await delivered(url, orderId);
    assert.match(output, new RegExp(`onPaid\\(${orderId}\\)`));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    assert.equal((await exited)[0], 0);
    const journal = await openJournal(`sqlite:${path}`);
    try {
      const [summary] = await journal.listRecent(1);
      assert.equal(summary?.orderId, orderId);
      assert.equal(summary?.status, 'paid');
      assert.notEqual(summary?.deliveredAt, null);
    } finally {
      await journal.close();
    }
  });
});
