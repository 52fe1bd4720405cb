/**
 * The fulfilment example of docs/fulfilment.md (test/fixtures/readme-fulfilment.ts)
 * runs as written: a real SQLite journal, the Node entry's transport, the
 * sandbox over loopback, real timers. So does its thank-you page check
 * (test/fixtures/readme-orders.ts), against the sandbox with a clock moved
 * by hand. The page must quote both exactly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../../src/sandbox/index.js';
import { priceAnyCart } from '../fixtures/checkout-data.js';
import { fulfilmentStack } from '../fixtures/fulfilment.js';
import { startCheckoutRelay } from '../fixtures/readme-fulfilment.js';
import { paidCart } from '../fixtures/readme-orders.js';
import { createRequest, intent, LOOKUP_SECRET, priceCart, SECRET } from '../fixtures/relay.js';
import { APPROVE_AFTER_MS, serveSandbox } from '../fixtures/sandbox.js';
import { gate, within } from '../fixtures/wait.js';

const page = fileURLToPath(new URL('../../docs/fulfilment.md', import.meta.url));

describe('the fulfilment example of docs/fulfilment.md', () => {
  for (const name of ['readme-fulfilment.ts', 'readme-orders.ts']) {
    it(`quotes test/fixtures/${name} exactly`, () => {
      const source = readFileSync(fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)), 'utf8');
      const start = '// docs:start\n';
      const quoted = source.slice(source.indexOf(start) + start.length, source.indexOf('// docs:end'));
      assert.ok(
        readFileSync(page, 'utf8').includes(`\`\`\`ts\n${quoted}\`\`\``),
        `docs/fulfilment.md quotes test/fixtures/${name}`,
      );
    });
  }

  it("answers the thank-you page's check from the journal: paid, for this cart", async () => {
    const stack = await fulfilmentStack('memory:', {
      priceCart: (cart) => ({ lineItems: priceCart(cart), reference: (cart as { id: string }).id }),
    });
    const cart = { id: 'cart-8812', items: [{ sku: 'scarf', quantity: 1 }] };
    const { orderId } = await stack.checkout(intent({ cart }));
    assert.equal(await paidCart(stack.relay, orderId, 'cart-8812'), undefined, 'not yet paid');
    await stack.advance(APPROVE_AFTER_MS);
    assert.deepEqual(await paidCart(stack.relay, orderId, 'cart-8812'), {
      items: [
        {
          type: 'product',
          product: { name: 'Adinkra scarf', price: { currency: 'ghs', value: 4_000 }, quantity: 1 },
        },
      ],
      amount: { currency: 'ghs', value: 4_000 },
      paidTwice: false,
    });
    assert.equal(await paidCart(stack.relay, orderId, 'cart-0001'), undefined, 'another cart');
  });

  it('ships a paid order once, through the journal', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-readme-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    const served = await serveSandbox(createSandbox({ approveAfterMs: 200 }));
    after(() => served.close());
    const shipped: string[] = [];
    const shippedOne = gate();
    const recorded = new Set<string>();
    const relay = await startCheckoutRelay(
      {
        PAY_SECRET_KEY: SECRET,
        PAY_API_BASE_URL: served.url,
        PAY_LOOKUP_SECRET: LOOKUP_SECRET,
        PAY_JOURNAL_URL: `sqlite:${join(scratch, 'journal.db')}`,
      },
      {
        priceCart: priceAnyCart,
        orders: {
          markPaidOnce: async (orderId) => !recorded.has(orderId) && Boolean(recorded.add(orderId)),
          release: async () => undefined,
        },
        ship: async (orderId) => {
          shipped.push(orderId);
          shippedOne.open();
        },
        alert: () => undefined,
      },
    );
    const response = await relay.create(createRequest(intent()), { clientAddress: '198.51.100.7' });
    const { order } = (await response.json()) as { order: { id: string } };
    await within('onPaid to ship the order', shippedOne.promise, 15_000);
    await relay.close();
    assert.deepEqual(shipped, [order.id]);
  });
});
