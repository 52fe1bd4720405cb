/**
 * `pay-checkout reconcile` as a merchant runs it: a child process, the
 * service's base URL and key in its environment, against a real sandbox
 * served over loopback and the relay's SQLite journal, which a relay in this
 * process writes while the command reads it. Every kind of difference is
 * listed (exit 1); a period with none exits 0.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSandbox, SANDBOX_KEYS, SANDBOX_TEST_NUMBERS } from '../../src/sandbox/index.js';
import { type Journal, openJournal } from '../../src/server/index.js';
import { CUSTOMER_NAME, creationInput, INTERNATIONAL_NUMBER } from '../fixtures/checkout-data.js';
import { runCli } from '../fixtures/pay-checkout-cli.js';
import { CLIENT, createRequest, createTestRelay, intent, lookupRequest } from '../fixtures/relay.js';
import { mountSandbox, sandboxFetch, serveSandbox, withNumber } from '../fixtures/sandbox.js';
import { eventually } from '../fixtures/wait.js';

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
