/**
 * `pay-checkout reconcile` as a merchant runs it: a child process, the
 * service's base URL and key in its environment, against a real sandbox
 * served over loopback and the relay's SQLite journal, which a relay in this
 * process writes while the command reads it. Every kind of difference is
 * listed (exit 1); a period with none exits 0.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  createSandbox,
  SANDBOX_KEYS,
  SANDBOX_TEST_NUMBERS,
  type Sandbox,
} from '../../../src/sandbox/index.js';
import { type Journal, openJournal } from '../../../src/server/index.js';
import { LATEST_JOURNAL_VERSION, MIGRATIONS_TABLE } from '../../../src/server/journal/migrations.js';
import { listen, toNodeListener } from '../../../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../../../src/shared/service-contract.js';
import { CUSTOMER_NAME, creationInput, INTERNATIONAL_NUMBER } from '../../fixtures/checkout-data.js';
import { olderSqliteJournal, writeSchemaUpTo } from '../../fixtures/older-journal.js';
import { runCli } from '../../fixtures/pay-checkout-cli.js';
import { CLIENT, createRequest, createTestRelay, intent, lookupRequest } from '../../fixtures/relay.js';
import { mountSandbox, sandboxFetch, serveSandbox, withNumber } from '../../fixtures/sandbox.js';
import { eventually } from '../../fixtures/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-reconcile-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Records `orderId` in `journal` as delivered to onPaid, whatever the service says of it. */
async function deliveredAsPaid(journal: Journal, orderId: string): Promise<void> {
  const idempotencyKey = `reconcile-${orderId}`.padEnd(24, '0');
  await journal.recordIntent({ idempotencyKey, createBody: creationInput, resendInMs: 60_000 });
  await journal.recordCreated(idempotencyKey, { orderId, paymentStatus: 'paid', nextCheckInMs: 0 });
  await journal.claimUndelivered('a-test', { limit: 10, leaseMs: 30_000 });
  assert.equal(await journal.markDelivered(idempotencyKey, 'a-test'), true);
}

/** The lines of a report that list a difference, by order id: `[label, order id, the rest]`. */
function differencesIn(stdout: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const match = /^(paid-not-delivered|delivered-not-paid|unknown-to-journal)\s+(or_\S+)\s+(.*)$/.exec(line);
    if (match) found.set(match[2] as string, `${match[1]} ${match[3]}`);
  }
  return found;
}

/** `sandbox` served over loopback, counting the calls of each path. */
async function countedSandbox(sandbox: Sandbox) {
  const calls = new Map<string, number>();
  const served = await listen(
    toNodeListener(
      (request) => {
        const path = new URL(request.url).pathname;
        calls.set(path, (calls.get(path) ?? 0) + 1);
        return sandbox.handle(request);
      },
      { maxBodyBytes: SERVICE_MAX_BODY_BYTES },
    ),
  );
  after(() => served.close());
  const env = { ...process.env, PAY_API_BASE_URL: served.url, PAY_SECRET_KEY: SANDBOX_KEYS.secret };
  return { env, calls };
}

/** The version an SQLite journal file's schema is at. */
async function versionOf(path: string): Promise<number> {
  const store = olderSqliteJournal(path);
  const versions = await store.versions();
  await store.close();
  return Math.max(...versions);
}

describe('pay-checkout reconcile, its cost and its care', () => {
  it('looks up none of the delivered paid orders a page already shows paid', {
    timeout: 60_000,
  }, async () => {
    const sandbox = createSandbox({ approveAfterMs: 60 * 60_000 });
    const service = await countedSandbox(sandbox);
    const path = join(scratch, 'delivered.db');
    const journal = await openJournal(`sqlite:${path}`);
    const orderIds = sandbox.seedOrders(20, creationInput);
    for (const orderId of orderIds) {
      sandbox.approve(orderId);
      await deliveredAsPaid(journal, orderId);
    }
    await journal.close();
    const report = await runCli(['reconcile', '--journal', `sqlite:${path}`], { env: service.env });
    assert.equal(report.code, 0, report.stdout + report.stderr);
    assert.match(report.stdout, /\(20 orders at the service, 20 in the journal\)/);
    assert.equal(service.calls.get('/orders/lookup') ?? 0, 0, 'no lookup for the 20 orders');
    assert.equal(service.calls.get('/orders/page'), 1);
  });

  it('refuses a journal at another version, and leaves it as it was', async () => {
    const service = await countedSandbox(createSandbox());
    for (const version of [LATEST_JOURNAL_VERSION - 1, LATEST_JOURNAL_VERSION + 1]) {
      const path = join(scratch, `version-${version}.db`);
      const store = olderSqliteJournal(path);
      await writeSchemaUpTo(store, Math.min(version, LATEST_JOURNAL_VERSION));
      if (version > LATEST_JOURNAL_VERSION)
        await store.insert(MIGRATIONS_TABLE, { version, description: 'a later one', applied_at: 0 });
      await store.close();
      const report = await runCli(['reconcile', '--journal', `sqlite:${path}`], { env: service.env });
      assert.equal(report.code, 1, report.stdout + report.stderr);
      assert.match(
        report.stderr,
        new RegExp(`version ${version}; this pay-checkout reads version ${LATEST_JOURNAL_VERSION}`),
      );
      assert.equal(await versionOf(path), version, 'not migrated');
    }
    const missing = join(scratch, 'no-journal-here.db');
    const report = await runCli(['reconcile', '--journal', `sqlite:${missing}`], { env: service.env });
    assert.equal(report.code, 1);
    assert.match(report.stderr, /no pay-checkout journal there/);
    assert.equal(existsSync(missing), false, 'no file created');
    assert.equal(service.calls.size, 0, 'the service is not called');
  });
});

describe('pay-checkout reconcile', () => {
  it('lists every difference between the service and the journal, and exits 1; 0 for a period without any', {
    timeout: 120_000,
  }, async () => {
    const sandbox = createSandbox({ approveAfterMs: 60 * 60_000 });
    const served = await serveSandbox(sandbox);
    after(() => served.close());
    const path = join(scratch, 'journal.db');
    const journal = await openJournal(`sqlite:${path}`);
    const relay = createTestRelay({
      baseUrl: mountSandbox(sandbox),
      fetch: sandboxFetch,
      rateLimit: false,
      journal,
      onPaid: () => undefined,
      watch: { ticks: false },
    });
    after(() => relay.close());
    const checkout = async () => {
      const answer = (await (await relay.create(createRequest(intent()), CLIENT)).json()) as {
        order: { id: string };
        lookup_token: string;
      };
      return { orderId: answer.order.id, lookupToken: answer.lookup_token };
    };

    // Paid and delivered: no difference.
    const delivered = await checkout();
    sandbox.approve(delivered.orderId);
    const lookup = lookupRequest({ order_id: delivered.orderId, lookup_token: delivered.lookupToken });
    assert.equal((await relay.lookup(lookup, CLIENT)).status, 200);
    await eventually('the paid order to be delivered', async () => {
      return (await relay.orders.get(delivered.orderId))?.deliveredAt != null;
    });
    // Paid at the service; the relay has not looked since.
    const paidUnseen = await checkout();
    sandbox.approve(paidUnseen.orderId);
    // Created at the service without the relay.
    const [elsewhere] = sandbox.seedOrders(1, creationInput);
    // Delivered to onPaid, while the service shows it waiting, or does not know it at all.
    const [waiting] = sandbox.seedOrders(1, withNumber(SANDBOX_TEST_NUMBERS.neverAnswers));
    await deliveredAsPaid(journal, waiting as string);
    await deliveredAsPaid(journal, 'or_unknownToTheService01');

    const env = { ...process.env, PAY_API_BASE_URL: served.url, PAY_SECRET_KEY: SANDBOX_KEYS.secret };
    const report = await runCli(['reconcile', '--journal', `sqlite:${path}`], { env });
    assert.equal(report.code, 1, report.stdout + report.stderr);
    assert.deepEqual(
      differencesIn(report.stdout),
      new Map([
        [paidUnseen.orderId, 'paid-not-delivered service: paid  journal: pending'],
        [elsewhere as string, 'unknown-to-journal service: requires_action  journal: none'],
        [waiting as string, 'delivered-not-paid service: requires_action  journal: paid, delivered'],
        ['or_unknownToTheService01', 'delivered-not-paid service: unknown  journal: paid, delivered'],
      ]),
    );
    assert.match(report.stdout, /^4 differences between the service and the journal since /m);
    for (const personal of [CUSTOMER_NAME, INTERNATIONAL_NUMBER])
      assert.equal(report.stdout.includes(personal), false);

    const tomorrow = new Date(Date.now() + 24 * 60 * 60_000).toISOString();
    const none = await runCli(['reconcile', '--journal', `sqlite:${path}`, '--since', tomorrow], { env });
    assert.equal(none.code, 0, none.stdout + none.stderr);
    assert.match(none.stdout, /^No difference between the service and the journal since /m);
  });

  it('names what it needs: the journal, the service from the environment, a date it can read', async () => {
    const help = await runCli(['reconcile', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /PAY_API_BASE_URL/);
    assert.match(help.stdout, /PAY_SECRET_KEY/);
    const noJournal = await runCli(['reconcile']);
    assert.equal(noJournal.code, 2);
    assert.match(noJournal.stderr, /--journal/);
    const env = { ...process.env, PAY_API_BASE_URL: '', PAY_SECRET_KEY: '' };
    const noService = await runCli(['reconcile', '--journal', 'memory:'], { env });
    assert.equal(noService.code, 2);
    assert.match(noService.stderr, /PAY_API_BASE_URL/);
    const badDate = await runCli(['reconcile', '--journal', 'memory:', '--since', 'last week'], { env });
    assert.equal(badDate.code, 2);
    assert.match(badDate.stderr, /--since/);
  });
});
