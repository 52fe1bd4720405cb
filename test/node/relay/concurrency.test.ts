/**
 * The relay under a crowd (issue #7), over real loopback HTTP: a shopper
 * hammering the pay button (1,000 creates at once with one idempotency key)
 * makes one order and exactly one create at the service; 200 shoppers paying
 * at once, each speaking the element's wire with its polling schedule, all
 * end `paid` with an order each and no duplicates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/index.js';
import {
  type CheckoutRelayEvent,
  type CheckoutRelayOptions,
  listen,
  type PricedLineItem,
  type RunningServer,
} from '../../../src/server/index.js';
import { IDEMPOTENT_REPLAYED_HEADER } from '../../../src/shared/service-contract.js';
import { createAnswerSchema, errorBodySchema } from '../../../src/shared/wire.js';
import { createTestRelay } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';
import { payAsShopper, payingNumber, shopperIntent } from '../../fixtures/simulated-shopper.js';

const PRICED: PricedLineItem[] = [
  { type: 'product', product: { name: 'Kente tote', price: { currency: 'ghs', value: 5000 }, quantity: 1 } },
];
/** The header the simulated shoppers carry their (simulated) address in, for per-shopper limits. */
const SHOPPER_ADDRESS_HEADER = 'x-test-shopper-address';

/** Counts what the relay sends the service: creates, and creates the service really ran (not replays). */
function countingFetch() {
  const counts = { creates: 0, freshCreates: 0, lookups: 0 };
  const wrapped: typeof fetch = async (input, init) => {
    const url = String(input);
    const response = await fetch(input, init);
    if (url.endsWith('/orders/new')) {
      counts.creates++;
      if (response.status === 200 && response.headers.get(IDEMPOTENT_REPLAYED_HEADER) !== 'true') {
        counts.freshCreates++;
      }
    } else if (url.endsWith('/orders/lookup')) counts.lookups++;
    return response;
  };
  return { counts, fetch: wrapped };
}

interface Stack {
  sandbox: RunningSandbox;
  relay: RunningServer;
  counts: ReturnType<typeof countingFetch>['counts'];
  events: CheckoutRelayEvent[];
  close(): Promise<void>;
}

async function startStack(
  sandboxOptions: Parameters<typeof startSandbox>[0],
  relayOptions: Partial<CheckoutRelayOptions>,
): Promise<Stack> {
  const sandbox = await startSandbox({ port: 0, ...sandboxOptions });
  const { counts, fetch: counted } = countingFetch();
  const events: CheckoutRelayEvent[] = [];
  const relay = createTestRelay({
    baseUrl: sandbox.url,
    priceCart: () => PRICED,
    fetch: counted,
    onEvent: (event) => {
      events.push(event);
    },
    ...relayOptions,
  });
  const server = await listen(relay.node);
  return {
    sandbox,
    relay: server,
    counts,
    events,
    close: async () => {
      await server.close();
      await sandbox.close();
    },
  };
}

function sendCreate(url: string, key: string, body: string): Promise<{ status: number; json: unknown }> {
  return fetch(`${url}/api/checkout/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body,
  }).then(async (response) => ({ status: response.status, json: await response.json() }));
}

describe('1,000 creates at once with one idempotency key', () => {
  const key = crypto.randomUUID();
  const body = JSON.stringify(shopperIntent('Ama Mensah', '0241234567'));

  it('through the relay: one order, one create run by the service, every answer that order or 409', async (t) => {
    // The service holds the key in flight for a while, so most of the crowd meets it mid-create.
    const stack = await startStack(
      { approveAfterMs: 60_000, processingDelayMs: 150 },
      // The crowd comes from one address; the test lifts the per-address limit, not the product.
      { rateLimit: { create: { capacity: 10_000, refillPerMinute: 10_000 } } },
    );
    try {
      const answers = await Promise.all(
        Array.from({ length: 1000 }, () => sendCreate(stack.relay.url, key, body)),
      );
      const statuses = new Map<number, number>();
      for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const orderIds = new Set<string>();
      const tokens = new Set<string>();
      for (const answer of answers) {
        if (answer.status === 200) {
          const created = createAnswerSchema.parse(answer.json);
          orderIds.add(created.order.id);
          tokens.add(created.lookup_token);
        } else {
          // The same attempt still in flight at the service: the element retries it with the same key.
          assert.equal(answer.status, 409, `statuses: ${JSON.stringify([...statuses])}`);
          assert.equal(errorBodySchema.parse(answer.json).error.code, 'idempotency_request_in_progress');
        }
      }
      t.diagnostic(
        `answers: ${JSON.stringify(Object.fromEntries(statuses))}; creates at the service: ${stack.counts.creates}`,
      );
      assert.ok((statuses.get(200) ?? 0) >= 1);
      assert.equal(orderIds.size, 1, 'every 200 is the same order');
      assert.equal(tokens.size, 1, 'with the same lookup token');
      assert.ok(stack.counts.creates >= 1000, `every create reached the service (${stack.counts.creates})`);
      assert.equal(
        stack.counts.freshCreates,
        1,
        'the service ran one create; every other was a replay or 409',
      );
      assert.equal(stack.sandbox.sandbox.createdOrderCount, 1);

      // The 409s, retried as the element retries them: the same order.
      const retried = await Promise.all(
        answers.filter((answer) => answer.status === 409).map(() => sendCreate(stack.relay.url, key, body)),
      );
      for (const answer of retried) {
        assert.equal(answer.status, 200);
        assert.ok(orderIds.has(createAnswerSchema.parse(answer.json).order.id));
      }
      assert.equal(stack.counts.freshCreates, 1);
      assert.equal(stack.sandbox.sandbox.createdOrderCount, 1);
    } finally {
      await stack.close();
    }
  });

  it('with the product’s own limits: ten reach the service, the rest get 429 with Retry-After, one order', async () => {
    // The limits' time stands still while the crowd is answered: however long a slow machine takes,
    // no token comes back into the bucket before the last of the thousand.
    const startedAt = Date.now();
    const stack = await startStack({ approveAfterMs: 60_000 }, { clock: clockReading(() => startedAt) });
    try {
      const responses = await Promise.all(
        Array.from({ length: 1000 }, () =>
          fetch(`${stack.relay.url}/api/checkout/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body,
          }),
        ),
      );
      let limited = 0;
      const orderIds = new Set<string>();
      for (const response of responses) {
        const json: unknown = await response.json();
        if (response.status === 429) {
          limited++;
          assert.match(response.headers.get('retry-after') ?? '', /^\d+$/);
          assert.equal(errorBodySchema.parse(json).error.code, 'rate_limited');
        } else {
          assert.equal(response.status, 200);
          orderIds.add(createAnswerSchema.parse(json).order.id);
        }
      }
      assert.equal(limited, 990);
      assert.equal(stack.counts.creates, 10);
      assert.equal(orderIds.size, 1);
      assert.equal(stack.counts.freshCreates, 1);
      assert.equal(stack.sandbox.sandbox.createdOrderCount, 1);
    } finally {
      await stack.close();
    }
  });
});

describe('200 shoppers paying at once', () => {
  const SHOPPERS = 200;
  let stack: Stack;

  before(async () => {
    stack = await startStack(
      { approveAfterMs: 1000 },
      // Each shopper has an address of its own, so the product's per-address limits apply as they would.
      { rateLimit: { clientAddress: (request) => request.headers.get(SHOPPER_ADDRESS_HEADER) ?? undefined } },
    );
  });

  after(() => stack.close());

  it('each ends paid with an order of its own: no duplicates, no order lost', async () => {
    const shoppers = Array.from({ length: SHOPPERS }, (_, index) => ({
      name: `Shopper ${index}`,
      number: payingNumber(index),
      address: `10.0.${Math.floor(index / 250)}.${index % 250}`,
    }));
    const outcomes = await Promise.all(
      shoppers.map((shopper) =>
        payAsShopper({
          createUrl: `${stack.relay.url}/api/checkout/orders`,
          lookupUrl: `${stack.relay.url}/api/checkout/lookup`,
          name: shopper.name,
          number: shopper.number,
          fetch: (input, init) =>
            fetch(input, {
              ...init,
              headers: {
                ...(init?.headers as Record<string, string>),
                [SHOPPER_ADDRESS_HEADER]: shopper.address,
              },
            }),
        }),
      ),
    );
    for (const outcome of outcomes) assert.equal(outcome.state, 'paid');
    const orderIds = new Set(outcomes.map((outcome) => outcome.orderId));
    assert.equal(orderIds.size, SHOPPERS, 'an order per shopper');
    assert.equal(stack.sandbox.sandbox.createdOrderCount, SHOPPERS, 'and no other order');
    assert.equal(stack.counts.freshCreates, SHOPPERS);
    // Each order is the shopper's own: the relay created it for that shopper's number.
    const phoneByOrder = new Map<string, string>();
    for (const event of stack.events) {
      if (event.type === 'order_created') phoneByOrder.set(event.orderId, event.customer.phone_number);
    }
    outcomes.forEach((outcome, index) => {
      assert.equal(phoneByOrder.get(outcome.orderId), `+233${shoppers[index]?.number.slice(1)}`);
    });
    // Polled on the element's schedule, within the product's limits.
    assert.ok(outcomes.every((outcome) => outcome.lookups >= 1));
    assert.equal(stack.events.filter((event) => event.type === 'rate_limited').length, 0);
  });
});
