import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

describe('importing the element in Node (server-side rendering)', () => {
  it('does not throw, for the public entry, the tag module and the embed entry', async () => {
    const entry = await import('../../../src/index.js');
    assert.equal(typeof entry.PayCheckout, 'function');
    assert.equal(entry.CHECKOUT_STATE.requiresAction, 'requires_action');
    assert.equal(typeof entry.EN_STRINGS.pay, 'function');
    await assert.doesNotReject(import('../../../src/element/pay-checkout.js'));
    await assert.doesNotReject(import('../../../src/embed.js'));
  });

  it('registers the tag once where a customElements exists, and loading twice is safe', async () => {
    const { PayCheckout } = await import('../../../src/index.js');
    // Lit's Node build installs a customElements shim (for SSR); the guard makes a second copy a no-op.
    assert.equal(customElements.get('pay-checkout'), PayCheckout);
    await assert.doesNotReject(import(`../../../src/element/pay-checkout.js?again=${Date.now()}`));
    assert.equal(customElements.get('pay-checkout'), PayCheckout);
  });
});
