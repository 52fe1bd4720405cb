/**
 * `relay.checkouts` as a merchant's server calls it: a mistake in the input
 * is a TypeError naming the field before anything is recorded; `origin` must
 * be one of the relay's allowed origins; the expiry is 300 s to a day, an
 * hour by default; without a journal both calls reject naming the `journal`
 * option. Two checkouts with one reference are one purchase: both are paid
 * once an order of either is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCheckoutRelay } from '../../../src/server/index.js';
import { createTestRelay, inProcessSandbox } from '../../fixtures/relay.js';
import { sandboxFetch } from '../../fixtures/sandbox.js';
import { payingFor, startCheckoutShop, toteCheckout } from '../../fixtures/server-checkouts.js';

const line = toteCheckout().lineItems[0];

describe('relay.checkouts', () => {
  it('names the field of every mistake in its input, and records nothing', async () => {
    const shop = await startCheckoutShop();
    const mistakes: [string, Record<string, unknown>][] = [
      ['reference', { reference: undefined }],
      ['reference', { reference: 'has spaces' }],
      ['lineItems', { lineItems: [] }],
      ['lineItems[0].quantity', { lineItems: [{ ...line, quantity: 0 }] }],
      ['lineItems[0].name', { lineItems: [{ ...line, name: ' ' }] }],
      [
        'lineItems[0].unitPrice.currency',
        { lineItems: [{ ...line, unitPrice: { currency: 'usd', value: 1 } }] },
      ],
      [
        'lineItems[1].unitPrice.value',
        { lineItems: [line, { ...line, unitPrice: { currency: 'ghs', value: 1.5 } }] },
      ],
      ['lineItems[0].sku', { lineItems: [{ ...line, sku: 7 }] }],
      ['metadata', { metadata: 'gift' }],
      ['metadata.note', { metadata: { note: 'x'.repeat(501) } }],
      ['expiresInSeconds', { expiresInSeconds: 299 }],
      ['expiresInSeconds', { expiresInSeconds: 86_401 }],
      ['origin', { origin: 'https://elsewhere.example' }],
    ];
    for (const [field, change] of mistakes) {
      await assert.rejects(
        shop.relay.checkouts.create({ ...toteCheckout(), ...change } as never),
        (error: Error) =>
          error instanceof TypeError &&
          error.message.startsWith(`relay.checkouts.create: ${field}: expected`),
        field,
      );
    }
    const day = await shop.relay.checkouts.create(
      toteCheckout({ expiresInSeconds: 86_400, metadata: undefined }),
    );
    assert.equal(day.expiresAt - day.createdAt, 86_400_000);
    assert.deepEqual(day.metadata, {});
    assert.equal(await shop.relay.checkouts.get('cs_unknown'), undefined);
    const read = await shop.relay.checkouts.get(day.id);
    assert.ok(read && !('clientSecret' in read), 'get never answers the client secret');
    assert.deepEqual({ ...read, clientSecret: day.clientSecret }, day);
  });

  it('without a journal, rejects naming the journal option', async () => {
    const { url } = inProcessSandbox();
    const relay = createTestRelay({ baseUrl: url, fetch: sandboxFetch }, createCheckoutRelay);
    await assert.rejects(
      relay.checkouts.create(toteCheckout({ origin: null })),
      /journal: await openJournal/,
    );
    await assert.rejects(relay.checkouts.get('cs_x'), /relay\.checkouts\.get .*journal/);
  });

  it('reads two checkouts of one reference as one purchase', async () => {
    const shop = await startCheckoutShop();
    const first = await shop.relay.checkouts.create(toteCheckout({ reference: 'order-2001' }));
    const second = await shop.relay.checkouts.create(toteCheckout({ reference: 'order-2001' }));
    const created = await shop.created(await shop.create(payingFor(first.clientSecret)));
    shop.sandbox.approve(created.order.id);
    shop.advance(5_000);
    await shop.lookup(created);
    const other = await shop.relay.checkouts.get(second.id);
    assert.equal(other?.status, 'paid');
    assert.equal(other?.paidOrderId, created.order.id);
    const refused = await shop.create(payingFor(second.clientSecret, '0241130009'));
    assert.equal(refused.status, 409);
  });
});
