/**
 * `pay-checkout check-relay` against `pay-checkout serve`, both over real
 * HTTP on 127.0.0.1: serve (in this process, with its embedded sandbox)
 * passes every check, reading what reached the service from the embedded
 * sandbox's request log, for a checkout its merchant API created and for a
 * cart priced from its catalogue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { idsMarked, runCli, verdictsOf } from '../../fixtures/pay-checkout-cli.js';
import { startTestServe, TEST_API_KEY, TEST_CATALOGUE, type TestServe } from '../../fixtures/serve.js';

/** Every check of a run, advice aside. */
const ALL_CHECKS = [
  'create-expected-amount',
  'create-invalid-input',
  'create-key-reused',
  'create-lost-answer',
  'create-malformed-key',
  'create-not-json',
  'create-replay',
  'create-too-large',
  'create-valid',
  'create-without-key',
  'error-shape',
  'lookup-forged-not-forwarded',
  'lookup-forged-token',
  'lookup-missing-token',
  'lookup-other-order-token',
  'lookup-valid',
  'no-personal-data',
  'price-route',
  'prompt-limit',
  'prompt-same-checkout',
  'security-headers',
];

/** A checkout the shop's backend creates through serve's merchant API; its client secret. */
async function createCheckout(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/checkouts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      line_items: [{ name: 'Kente tote', quantity: 1, unit_price: { currency: 'ghs', value: 12_500 } }],
      reference: 'order-1042',
    }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { client_secret: string }).client_secret;
}

describe('pay-checkout check-relay against pay-checkout serve', { timeout: 240_000 }, () => {
  let running: TestServe;
  before(async () => {
    running = await startTestServe({ catalogue: TEST_CATALOGUE });
  });
  after(() => running.close());

  it('passes every check for a server-created checkout, its embedded sandbox read for what reached the service, exit 0', async () => {
    const { url } = running.serve;
    const clientSecret = await createCheckout(url);
    const args = [
      'check-relay',
      `${url}/checkout`,
      '--checkout',
      clientSecret,
      '--sandbox',
      `${url}/sandbox`,
    ];
    const result = await runCli(args);
    assert.equal(result.code, 0, result.transcript);
    assert.deepEqual(idsMarked(result.stdout, 'pass'), ALL_CHECKS, result.transcript);
    assert.match(
      result.stdout,
      /^pass {2}price-route +price of the checkout → 200, 12500 ghs, 1 line item, reference order-1042$/m,
    );
    assert.match(result.stdout, /^21 of 21 checks conform\./m);
    // Nothing of the shopper's, and no client secret, in serve's log.
    assert.ok(!running.logText().includes(clientSecret), 'the log shows the client secret');
    assert.ok(!running.logText().includes('244000003'), 'the log shows the number');
  });

  it('passes every check for a cart priced from its catalogue (no reference: the one-checkout prompt a note), exit 0', async () => {
    const { url } = running.serve;
    // The first run spent the prompts of 0244000003: this one pays from the next test number.
    const cart = JSON.stringify({ items: [{ sku: 'kente-tote', quantity: 1 }] });
    const result = await runCli([
      'check-relay',
      `${url}/checkout`,
      '--cart',
      cart,
      '--sandbox',
      `${url}/sandbox`,
    ]);
    assert.equal(result.code, 0, result.transcript);
    const withoutReference = ALL_CHECKS.filter((id) => id !== 'prompt-same-checkout');
    assert.deepEqual(idsMarked(result.stdout, 'pass'), withoutReference, result.transcript);
    assert.equal(verdictsOf(result.stdout).get('prompt-same-checkout'), 'note', result.transcript);
  });
});
