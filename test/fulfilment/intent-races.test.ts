/**
 * The journal's intent is the only thing the service is charged for: two
 * creates racing under one Idempotency-Key with different carts, names and
 * numbers, 0–25 ms of jitter on every call to the service, on one relay and
 * on two relays sharing one journal (memory: one relay only; SQLite: one
 * file; PostgreSQL: one database). After every race, what the service
 * charged (its order's `line_item_group.total` and line items) is what the
 * relay's answer, `relay.orders.get` and `onPaid` say; the create that lost
 * the race is the `422` of a reused key, and the service never heard of its
 * cart. And two attempts of one checkout to one number, racing on two
 * relays, send the phone one prompt. Real sandbox over loopback HTTP, real
 * journals.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSandbox, SANDBOX_KEYS } from '../../src/sandbox/index.js';
import {
  type CheckoutRelay,
  createCheckoutRelay,
  type FulfilledOrder,
  type Journal,
  openJournal,
} from '../../src/server/index.js';
import { createAnswerSchema } from '../../src/shared/wire.js';
import { customerPayingFrom } from '../fixtures/checkout-data.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import {
  CLIENT,
  createRequest,
  intent,
  lookupRequest,
  priceCart,
  testRelayOptions,
} from '../fixtures/relay.js';
import { serveSandbox } from '../fixtures/sandbox.js';
import { eventually } from '../fixtures/wait.js';

const RACES = 30;
const MAX_JITTER_MS = 25;

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-races-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The sandbox served over loopback; paid at once, so `onPaid` follows each order within a pass. */
const sandbox = createSandbox({ approveAfterMs: 60_000 });
let serviceUrl = '';
const serving = serveSandbox(sandbox).then((served) => {
  serviceUrl = served.url;
  return served;
});
after(async () => (await serving).close());

/** The real fetch, each call held 0–25 ms first: the two creates reach the service in any order. */
const jitteringFetch: typeof fetch = async (input, init) => {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_JITTER_MS));
  return fetch(input, init);
};

/** The two carts that race: five totes for Ama, one scarf for Kofi. */
function racingBodies(race: number) {
  const number = (offset: number) => `02450${String(race * 2 + offset).padStart(5, '0')}`;
  return [
    intent({ ...customerPayingFrom(number(0)), cart: { items: [{ sku: 'tote', quantity: 5 }] } }),
    intent({
      ...customerPayingFrom(number(1), 'Kofi Boateng'),
      cart: { items: [{ sku: 'scarf', quantity: 1 }] },
    }),
  ];
}

/** What the service charged for `orderId`: its total and the sum of its line items. */
async function charged(orderId: string) {
  const response = await fetch(`${serviceUrl}/orders/lookup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SANDBOX_KEYS.secret}` },
    body: JSON.stringify({ order_id: orderId }),
  });
  const { order } = (await response.json()) as {
    order: {
      line_item_group: { total: { value: number } };
      line_items: { product: { price: { value: number }; quantity: number } }[];
    };
  };
  const items = order.line_items.reduce(
    (sum, item) => sum + item.product.price.value * item.product.quantity,
    0,
  );
  return { total: order.line_item_group.total.value, items };
}

/** The sum of a journal's priced line items. */
function lineItemsValue(lineItems: readonly { product: { price: { value: number }; quantity: number } }[]) {
  return lineItems.reduce((sum, item) => sum + item.product.price.value * item.product.quantity, 0);
}

/** Relays on `journals` (one relay each), watching the jittered service; `paid` collects `onPaid`. */
function relaysOn(journals: Journal[], paid: FulfilledOrder[]): CheckoutRelay[] {
  return journals.map((journal) => {
    const relay = createCheckoutRelay(
      testRelayOptions({
        baseUrl: serviceUrl,
        fetch: jitteringFetch,
        rateLimit: false,
        journal,
        onPaid: (order) => {
          paid.push(order);
        },
        watch: { ticks: false },
      }),
    );
    after(() => relay.close());
    return relay;
  });
}

/**
 * Runs the races on `relays` (the two creates of a race on two relays when
 * there are two) and counts mismatches between what the service charged and
 * what the relay said: its answers and `orders.get`.
 */
async function raceAndCount(relays: CheckoutRelay[]) {
  let mismatches = 0;
  const statuses: number[] = [];
  const tokens = new Map<string, string>();
  for (let race = 0; race < RACES; race++) {
    const key = crypto.randomUUID();
    const answers = await Promise.all(
      racingBodies(race).map((body, index) =>
        (relays[index % relays.length] as CheckoutRelay).create(createRequest(body, { key }), CLIENT),
      ),
    );
    for (const answer of answers) {
      statuses.push(answer.status);
      if (answer.status !== 200) continue;
      const { order, lookup_token } = createAnswerSchema.parse(await answer.json());
      tokens.set(order.id, lookup_token);
      const service = await charged(order.id);
      const known = await (relays[0] as CheckoutRelay).orders.get(order.id);
      const said = [order.amount?.value, known?.amount?.value, known && lineItemsValue(known.lineItems)];
      if (said.some((value) => value !== service.total) || service.items !== service.total) mismatches += 1;
    }
  }
  return { mismatches, statuses, tokens };
}

/** Approves every order at the service, looks each up as the browser would, and counts what `onPaid` says wrong. */
async function paidMismatches(relay: CheckoutRelay, tokens: Map<string, string>, paid: FulfilledOrder[]) {
  for (const [orderId, lookupToken] of tokens) {
    sandbox.approve(orderId);
    await relay.lookup(lookupRequest({ order_id: orderId, lookup_token: lookupToken }), CLIENT);
  }
  await eventually('onPaid for every order', () => paid.length >= tokens.size || undefined);
  let mismatches = 0;
  for (const order of paid) {
    const service = await charged(order.id);
    if (order.amount.value !== service.total || lineItemsValue(order.lineItems) !== service.total)
      mismatches += 1;
  }
  return mismatches;
}

/** Races on `journals`, then checks every figure. */
async function assertNoMismatch(journals: Journal[]) {
  await serving;
  const paid: FulfilledOrder[] = [];
  const relays = relaysOn(journals, paid);
  const before = sandbox.createdOrderCount;
  const { mismatches, statuses, tokens } = await raceAndCount(relays);
  assert.equal(mismatches, 0, `${mismatches} of ${RACES} races charged one cart and said another`);
  assert.equal(tokens.size, RACES, `one order per key: ${statuses.join(' ')}`);
  assert.equal(sandbox.createdOrderCount - before, RACES, 'the losing cart never reached the service');
  assert.ok(
    statuses.every((status) => status === 200 || status === 422),
    `only the order or the reused key's 422: ${statuses.join(' ')}`,
  );
  assert.equal(
    await paidMismatches(relays[0] as CheckoutRelay, tokens, paid),
    0,
    'onPaid says what was charged',
  );
}

describe('two creates racing under one key with different carts', () => {
  it('memory: one relay, 30 races with jitter: 0 mismatches', async () => {
    await assertNoMismatch([await openJournal('memory:')]);
  });

  for (const relays of [1, 2]) {
    it(`SQLite: ${relays} relay(s) on one file, 30 races with jitter: 0 mismatches`, async () => {
      const url = `sqlite:${join(scratch, `races-${relays}.db`)}`;
      const journals = await Promise.all(Array.from({ length: relays }, () => openJournal(url)));
      await assertNoMismatch(journals);
    });
  }

  describe('PostgreSQL', { skip: postgresSkipReason() }, () => {
    for (const relays of [1, 2]) {
      it(`${relays} relay(s) on one database, 30 races with jitter: 0 mismatches`, {
        timeout: 120_000,
      }, async () => {
        const cluster = await startPostgres();
        after(() => cluster.stop());
        const url = await cluster.createDatabase();
        const journals = await Promise.all(Array.from({ length: relays }, () => openJournal(url)));
        await assertNoMismatch(journals);
      });
    }

    it('two relays, two attempts of one checkout to one number racing: one prompt each time', {
      timeout: 120_000,
    }, async () => {
      const cluster = await startPostgres();
      after(() => cluster.stop());
      const url = await cluster.createDatabase();
      await assertOnePromptPerRace([await openJournal(url), await openJournal(url)]);
    });
  });

  it('SQLite: two relays, two attempts of one checkout to one number racing: one prompt each time', async () => {
    const url = `sqlite:${join(scratch, 'prompts.db')}`;
    await assertOnePromptPerRace([await openJournal(url), await openJournal(url)]);
  });
});

/** Two creates of one checkout to one number, with two keys, on two relays: one service order per race. */
async function assertOnePromptPerRace(journals: Journal[]) {
  await serving;
  const relays = journals.map((journal) => {
    const relay = createCheckoutRelay(
      testRelayOptions({
        baseUrl: serviceUrl,
        fetch: jitteringFetch,
        rateLimit: false,
        journal,
        priceCart: (cart) => ({ lineItems: priceCart(cart), reference: (cart as { id: string }).id }),
        onPaid: () => undefined,
        watch: { ticks: false },
      }),
    );
    after(() => relay.close());
    return relay;
  });
  const before = sandbox.createdOrderCount;
  for (let race = 0; race < 10; race++) {
    const cart = { id: `checkout-${crypto.randomUUID()}`, items: [{ sku: 'tote', quantity: 1 }] };
    // The test number whose payer never answers: the first order stays open.
    const body = intent({ ...customerPayingFrom('0244000003'), cart });
    const answers = await Promise.all(relays.map((relay) => relay.create(createRequest(body), CLIENT)));
    const ids = new Set<string>();
    for (const answer of answers) {
      assert.ok(answer.status === 200 || answer.status === 409, `status ${answer.status}`);
      if (answer.status === 200) ids.add(createAnswerSchema.parse(await answer.json()).order.id);
    }
    assert.ok(ids.size <= 1, 'both answers name one order');
  }
  assert.equal(sandbox.createdOrderCount - before, 10, 'one prompt per race');
}
