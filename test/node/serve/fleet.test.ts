/**
 * A fleet of two `pay-checkout serve` processes on one PostgreSQL journal
 * and one Redis, in front of one payments service (a sandbox of its own):
 * an order created through one is looked up and verified through the other,
 * and the payment-prompt limit of a number holds across both.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningSandbox, SANDBOX_KEYS, startSandbox } from '../../../src/sandbox/index.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { type PostgresCluster, postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';
import { type RedisServer, redisSkipReason, startRedis } from '../../fixtures/redis.js';
import { postJson, TEST_API_KEY, TEST_CATALOGUE, TEST_LOOKUP_SECRET } from '../../fixtures/serve.js';
import { type ServeCommand, startServeCommand } from '../../fixtures/serve-command.js';

const skip = postgresSkipReason() ?? redisSkipReason();
const CART = { items: [{ sku: 'kente-tote', quantity: 1 }] };

describe('a fleet of serve processes on one PostgreSQL and one Redis', { skip, timeout: 180_000 }, () => {
  let folder: string;
  let cluster: PostgresCluster;
  let redis: RedisServer;
  let service: RunningSandbox;
  const fleet: ServeCommand[] = [];

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'pay-checkout-fleet-'));
    [cluster, redis, service] = await Promise.all([
      startPostgres(),
      startRedis(),
      startSandbox({ approveAfterMs: 3_600_000 }),
    ]);
    const config = join(folder, 'pay-checkout.json');
    await writeFile(
      config,
      JSON.stringify({
        listen: { port: 0 },
        service: { baseUrl: service.url },
        journal: await cluster.createDatabase(),
        redis: redis.url,
        catalogue: TEST_CATALOGUE,
      }),
    );
    const env = {
      ...process.env,
      PAY_SECRET_KEY: SANDBOX_KEYS.secret,
      PAY_CHECKOUT_API_KEY: TEST_API_KEY,
      PAY_LOOKUP_SECRET: TEST_LOOKUP_SECRET,
    };
    // One after the other: the first creates the journal's tables, the second finds them.
    fleet.push(await startServeCommand(['--config', config], { cwd: folder, env }));
    fleet.push(await startServeCommand(['--config', config], { cwd: folder, env }));
  });

  after(async () => {
    for (const serve of fleet) assert.equal(await serve.stop('SIGTERM'), 0, serve.output());
    await service?.close();
    await redis?.stop();
    cluster?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('starts both with the PostgreSQL journal and the Redis limits, and both are ready', async () => {
    for (const serve of fleet) {
      assert.equal(serve.started.journal, 'postgres:');
      assert.equal(serve.started.limits, 'redis');
      assert.equal((await fetch(`${serve.url}/readyz`)).status, 200, serve.output());
    }
  });

  it('looks up through one an order created through the other, and verifies it through /v1 on both', async () => {
    const [first, second] = fleet as [ServeCommand, ServeCommand];
    const created = await postJson(`${first.url}/checkout/orders`, {
      ...customerPayingFrom('0243330001'),
      cart: CART,
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const orderId = String((created.body?.order as { id?: string } | undefined)?.id);
    service.sandbox.approve(orderId);
    const lookup = await postJson(`${second.url}/checkout/lookup`, {
      order_id: orderId,
      lookup_token: created.body?.lookup_token,
    });
    assert.equal(lookup.status, 200, JSON.stringify(lookup.body));
    assert.equal(
      (lookup.body?.order as { payment?: { status: string } } | undefined)?.payment?.status,
      'paid',
    );
    for (const serve of fleet) {
      const answer = await fetch(`${serve.url}/v1/orders/${orderId}`, {
        headers: { authorization: `Bearer ${TEST_API_KEY}` },
      });
      assert.equal(answer.status, 200);
      const order = (await answer.json()) as { outcome: string; amount: unknown };
      assert.equal(order.outcome, 'paid');
      assert.deepEqual(order.amount, { currency: 'ghs', value: 12_500 });
    }
  });

  it('holds the payment-prompt limit of a number across both processes', async () => {
    const [first, second] = fleet as [ServeCommand, ServeCommand];
    const body = { ...customerPayingFrom('0243330002'), cart: CART };
    const statuses: number[] = [];
    for (const serve of [first, second, first, second]) {
      statuses.push((await postJson(`${serve.url}/checkout/orders`, body)).status);
    }
    // Three prompts per number in ten minutes, counted in Redis: the fourth is refused wherever it lands.
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('says on /readyz that the journal does not answer while PostgreSQL is frozen, and is ready once it answers', async () => {
    const [first] = fleet as [ServeCommand];
    cluster.freeze();
    try {
      const frozen = await fetch(`${first.url}/readyz`);
      assert.equal(frozen.status, 503);
      assert.deepEqual(((await frozen.json()) as { failing: string[] }).failing, ['journal']);
    } finally {
      cluster.thaw();
    }
    assert.equal((await fetch(`${first.url}/readyz`)).status, 200);
  });
});
