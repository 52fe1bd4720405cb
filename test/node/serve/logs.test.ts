/**
 * serve's log: one JSON object per line, and nothing in it a thief or a
 * regulator would care about. A shopper pays a cart and a server-created
 * checkout, a page guesses, a backend sends a wrong key; then the log is
 * searched for her name and number, the keys, the lookup token and the
 * client secret, and holds none of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import { CUSTOMER_NAME, customerPayingFrom } from '../../fixtures/checkout-data.js';
import {
  payThroughServe,
  postJson,
  startTestServe,
  TEST_API_KEY,
  TEST_CATALOGUE,
  TEST_LOOKUP_SECRET,
} from '../../fixtures/serve.js';

const LOCAL = '0241234599';
const INTERNATIONAL = '+233241234599';

describe('serve’s log', () => {
  it('is JSON lines with no name, number, key, lookup token or client secret in them', async () => {
    const running = await startTestServe({ catalogue: TEST_CATALOGUE });
    const { url } = running.serve;
    const secrets: string[] = [CUSTOMER_NAME, 'Mensah', LOCAL, INTERNATIONAL, '241234599'];
    secrets.push(SANDBOX_KEYS.secret, TEST_API_KEY, TEST_LOOKUP_SECRET);
    try {
      const paid = await payThroughServe(url, LOCAL);
      assert.equal(paid.lookup.status, 200);
      secrets.push(paid.lookupToken);
      const checkout = await postJson(
        `${url}/v1/checkouts`,
        {
          line_items: [{ name: 'Kente tote', quantity: 1, unit_price: { currency: 'ghs', value: 12_500 } }],
          reference: 'log-test-1',
        },
        { authorization: `Bearer ${TEST_API_KEY}` },
      );
      const clientSecret = checkout.body?.client_secret as string;
      secrets.push(clientSecret);
      const second = await payThroughServe(url, LOCAL, undefined, undefined, { checkout: clientSecret });
      secrets.push(second.lookupToken);
      // A refused create that quotes her number back in its field, a guessed secret, a wrong key.
      await postJson(`${url}/checkout/orders`, { ...customerPayingFrom('02412345'), cart: {} });
      await fetch(`${url}/checkout/checkouts/${clientSecret.slice(0, -4)}abcd`);
      const wrongKey = `${TEST_API_KEY.slice(0, -4)}wxyz`;
      secrets.push(wrongKey);
      await postJson(`${url}/v1/checkouts`, {}, { authorization: `Bearer ${wrongKey}` });
      await running.serve.relay.fulfilment?.tick();
    } finally {
      await running.close();
    }
    const text = running.logText();
    for (const secret of secrets) assert.ok(!text.includes(secret), `the log holds ${secret}`);
    const lines = running.logLines();
    for (const line of lines) {
      assert.match(String(line.time), /^\d{4}-\d\d-\d\dT/);
      assert.ok(['info', 'warn', 'error'].includes(String(line.level)), JSON.stringify(line));
      assert.equal(typeof line.event, 'string');
    }
    const events = lines.map((line) => line.event);
    for (const event of [
      'serve_started',
      'order_created',
      'order_settled',
      'serve_closing',
      'serve_stopped',
    ]) {
      assert.ok(events.includes(event), `${event} in ${events.join(', ')}`);
    }
  });
});
