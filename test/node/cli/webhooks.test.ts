/**
 * `pay-checkout webhooks list|replay|test`, run from the sources against the
 * SQLite journal a real serve wrote and a real receiver on 127.0.0.1 that
 * verifies every request with `verifyWebhook`: `list` shows each event with
 * its deliveries and attempts and no customer, `replay` of one event or of
 * every event since a time makes it due again and serve sends it again, the
 * same id, `list --failed` shows a delivery that failed for good, and `test`
 * sends a signed ping with the endpoint's own secret, refusing an endpoint
 * that is not configured, a secret that is not set, and (unless allowed) a
 * private target.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openJournal } from '../../../src/server/journal/open-journal.js';
import { verifyWebhook } from '../../../src/server/webhooks/verify-webhook.js';
import { runCli } from '../../fixtures/pay-checkout-cli.js';
import {
  payThroughServe,
  startTestServe,
  TEST_API_KEY,
  TEST_CATALOGUE,
  TEST_LOOKUP_SECRET,
} from '../../fixtures/serve.js';
import { SOURCE_CLI_ANYWHERE } from '../../fixtures/serve-command.js';
import { eventually } from '../../fixtures/wait.js';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const CUSTOMER = 'Esi Owusu';

/** One request the receiver verified. */
interface Received {
  id: string;
  type: string;
  userAgent: string;
}

/** A receiver on 127.0.0.1 verifying with `SECRET`; answers `status()`, 401 to what it cannot verify. */
async function startReceiver(status: () => number) {
  const received: Received[] = [];
  const refused: string[] = [];
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      const event = await verifyWebhook(SECRET, request.headers, Buffer.concat(chunks));
      received.push({
        id: String(request.headers['webhook-id']),
        type: event.type,
        userAgent: String(request.headers['user-agent']),
      });
      response.writeHead(status()).end();
    } catch (error) {
      refused.push((error as Error).message);
      response.writeHead(401).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/webhooks/pay`,
    received,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('pay-checkout webhooks', { timeout: 120_000 }, () => {
  let folder: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let answer = 204;
  let journalUrl: string;
  const env = () => ({ ...process.env, SHOP_WEBHOOK_SECRET: SECRET });
  const cli = (args: readonly string[], environment: NodeJS.ProcessEnv = env()) =>
    runCli(['webhooks', ...args], { launcher: SOURCE_CLI_ANYWHERE, cwd: folder, env: environment });
  const config = (more: Record<string, unknown> = {}) => ({
    journal: journalUrl,
    catalogue: TEST_CATALOGUE,
    webhooks: [{ url: receiver.url, secretEnv: 'SHOP_WEBHOOK_SECRET', events: ['order.paid'] }],
    allowPrivateWebhookTargets: true,
    ...more,
  });
  /** serve on the shared journal, running `use`, then stopped. */
  async function withServe(use: (url: string) => Promise<void>) {
    const running = await startTestServe(config(), {
      env: {
        PAY_CHECKOUT_API_KEY: TEST_API_KEY,
        PAY_LOOKUP_SECRET: TEST_LOOKUP_SECRET,
        SHOP_WEBHOOK_SECRET: SECRET,
      },
    });
    try {
      await use(running.serve.url);
    } finally {
      await running.close();
    }
  }

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'pay-checkout-webhooks-cli-'));
    journalUrl = `sqlite:${join(folder, 'journal.db')}`;
    receiver = await startReceiver(() => answer);
    await writeFile(join(folder, 'pay-checkout.json'), JSON.stringify(config(), null, 2));
  });
  after(async () => {
    await receiver?.close();
    await rm(folder, { recursive: true, force: true });
  });

  let eventId: string;
  let orderId: string;

  it('list shows a delivered event with its attempt, and never the customer', async () => {
    await withServe(async (url) => {
      ({ orderId } = await payThroughServe(url, '0241234567', undefined, CUSTOMER));
      await eventually('the order.paid event received', () => receiver.received.length === 1, {
        timeoutMs: 30_000,
      });
    });
    const [first] = receiver.received;
    eventId = first?.id as string;
    assert.equal(first?.type, 'order.paid');
    assert.match(first?.userAgent ?? '', /^pay-checkout\/\d+\.\d+\.\d+/);
    const listed = await cli(['list']);
    assert.equal(listed.code, 0, listed.transcript);
    const lines = listed.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', new RegExp(`^${eventId} order\\.paid order ${orderId} at \\d{4}-`));
    assert.match(lines[1] ?? '', new RegExp(`^    ${receiver.url} delivered, at \\d{4}-`));
    assert.match(lines[2] ?? '', /^ {6}#1 \d{4}-\S+Z 204 in \d+ ms$/);
    assert.ok(!listed.transcript.includes(CUSTOMER) && !listed.transcript.includes('241234567'));
    const json = await cli(['list', '--json']);
    const events = JSON.parse(json.stdout) as { id: string; deliveries: { state: string }[] }[];
    assert.deepEqual(
      events.map((event) => [event.id, event.deliveries.map((delivery) => delivery.state)]),
      [[eventId, ['delivered']]],
    );
    const failed = await cli(['list', '--failed']);
    assert.equal(failed.stdout, 'No failed webhook deliveries.\n');
  });

  it('replay <event-id> sends the event again, the same id, once serve runs', async () => {
    const replayed = await cli(['replay', eventId]);
    assert.equal(replayed.code, 0, replayed.transcript);
    assert.equal(replayed.stdout, `Replayed ${eventId}: 1 delivery due now.\n`);
    await withServe(async () => {
      await eventually('the replayed event received', () => receiver.received.length === 2, {
        timeoutMs: 30_000,
      });
    });
    assert.deepEqual(
      receiver.received.map((one) => one.id),
      [eventId, eventId],
    );
    const unknown = await cli(['replay', 'msg_AAAAAAAAAAAAAAAAAAAAAAAA']);
    assert.equal(unknown.code, 1, unknown.transcript);
    assert.match(unknown.stderr, /no event msg_A{24} in the journal/);
  });

  it('replay --since, to one endpoint or all, counts what it made due', async () => {
    const before = new Date(Date.now() - 3_600_000).toISOString();
    const other = await cli(['replay', '--since', before, '--endpoint', 'https://elsewhere.example/hook']);
    assert.equal(other.code, 0, other.transcript);
    assert.match(other.stdout, /to https:\/\/elsewhere\.example\/hook: 0 deliveries due now/);
    const all = await cli(['replay', '--since', before, '--endpoint', receiver.url]);
    assert.match(all.stdout, /: 1 delivery due now\.\n$/);
    const future = await cli(['replay', '--since', new Date(Date.now() + 3_600_000).toISOString()]);
    assert.match(future.stdout, /: 0 deliveries due now\.\n$/);
    const bad = await cli(['replay', '--since', 'yesterday']);
    assert.equal(bad.code, 2, bad.transcript);
    assert.match(bad.stderr, /--since must be an ISO 8601 time/);
  });

  it('list --failed shows a delivery that failed for good', async () => {
    const journal = await openJournal(journalUrl);
    try {
      // The delivery replayed above, claimed and failed for good as the dispatcher would record it.
      const [claimed] = await journal.claimWebhookDeliveries('operator-test', {
        endpoint: receiver.url,
        limit: 1,
        leaseMs: 30_000,
      });
      assert.ok(claimed);
      const recorded = await journal.recordWebhookAttempt(claimed, 'operator-test', {
        status: 500,
        durationMs: 12,
        error: null,
        next: { state: 'failed' },
      });
      assert.ok(recorded);
    } finally {
      await journal.close();
    }
    const failed = await cli(['list', '--failed']);
    assert.equal(failed.code, 0, failed.transcript);
    assert.match(failed.stdout, new RegExp(`^${eventId} order\\.paid`));
    assert.match(failed.stdout, / failed\n/);
    assert.match(failed.stdout, / 500 in 12 ms\n/);
  });

  it('test <url> sends a ping signed with the endpoint’s secret, and fails on a receiver’s error', async () => {
    const sent = await cli(['test', receiver.url]);
    assert.equal(sent.code, 0, sent.transcript);
    assert.match(
      sent.stdout,
      new RegExp(`^ping msg_[A-Za-z0-9_-]{24} to ${receiver.url}: answered 204 in \\d+ ms\\n$`),
    );
    const ping = receiver.received.at(-1);
    assert.equal(ping?.type, 'ping');
    assert.ok(!sent.transcript.includes(SECRET));
    answer = 500;
    const failing = await cli(['test', receiver.url]);
    answer = 204;
    assert.equal(failing.code, 1, failing.transcript);
    assert.match(failing.stderr, /answered 500 in \d+ ms/);
    assert.doesNotMatch(failing.stderr, /secret/);
    answer = 401;
    const unverified = await cli(['test', receiver.url]);
    answer = 204;
    assert.equal(unverified.code, 1, unverified.transcript);
    assert.match(
      unverified.stderr,
      /answered 401 in \d+ ms\n.*the receiver did not accept the signature: give it the secret in SHOP_WEBHOOK_SECRET\.\n$/,
    );
    assert.deepEqual(receiver.refused, []);
  });

  it('test <url> refuses an endpoint not configured, a secret not set, and a private target unless allowed', async () => {
    const unknown = await cli(['test', 'https://elsewhere.example/hook']);
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /https:\/\/elsewhere\.example\/hook is not an endpoint of pay-checkout\.json/,
    );
    const { SHOP_WEBHOOK_SECRET: _secret, ...withoutSecret } = env();
    const unset = await cli(['test', receiver.url], withoutSecret);
    assert.equal(unset.code, 1);
    assert.match(unset.stderr, /webhooks\[0\]\.secretEnv: SHOP_WEBHOOK_SECRET is not set/);
    const strict = join(folder, 'strict.json');
    await writeFile(strict, JSON.stringify(config({ allowPrivateWebhookTargets: false })));
    const pings = receiver.received.length;
    const refused = await cli(['test', receiver.url, '--config', strict]);
    assert.equal(refused.code, 1, refused.transcript);
    assert.match(refused.stderr, /webhooks\[0\]\.url: 127\.0\.0\.1 is a loopback address, refused unless/);
    assert.equal(receiver.received.length, pings, 'nothing reached the private target');
  });

  it('--help names every action; bad arguments exit 2', async () => {
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    for (const word of [
      'list',
      '--failed',
      'replay <event-id>',
      '--since',
      '--endpoint',
      'test <url>',
      '--config',
    ]) {
      assert.ok(help.stdout.includes(word), word);
    }
    const all = await runCli(['--help'], { launcher: SOURCE_CLI_ANYWHERE, cwd: folder });
    assert.match(all.stdout, /webhooks list\|replay\|test/);
    for (const args of [
      [],
      ['resend'],
      ['list', 'extra'],
      ['list', '--since', '2026-01-01T00:00:00Z'],
      ['test'],
    ]) {
      const result = await cli(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.transcript}`);
    }
  });
});
