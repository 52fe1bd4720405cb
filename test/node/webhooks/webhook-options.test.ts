/**
 * The `webhooks` option of `createCheckoutRelay`, checked at startup: each
 * mistake is a TypeError naming its field (never quoting a secret), webhooks
 * need a journal and the Node entry, `onPaid` is optional beside them, and
 * the `user-agent` they are sent with names this release.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PAY_CHECKOUT_VERSION } from '../../../src/server/fulfilment/webhooks/user-agent.js';
import { openJournal, createCheckoutRelay as portableRelay } from '../../../src/server/index.js';
import { createCheckoutRelay } from '../../../src/server/node.js';
import { createTestRelay } from '../../fixtures/relay.js';
import { NEXT_WEBHOOK_SECRET, TEST_WEBHOOK_SECRET } from '../../fixtures/webhook-receiver.js';

const BASE_URL = 'https://sandbox.example';
const URL_A = 'https://shop.example/hooks';

/** A relay with a memory journal and `webhooks`, made by the Node entry unless told. */
async function relayWith(options: Record<string, unknown>, factory = createCheckoutRelay) {
  const journal = await openJournal('memory:');
  const relay = createTestRelay({ baseUrl: BASE_URL, journal, watch: { ticks: false }, ...options }, factory);
  await relay.close();
  return relay;
}

describe('the webhooks option', () => {
  it('takes endpoints instead of onPaid, or beside it, with several secrets during a rotation', async () => {
    await relayWith({ webhooks: [{ url: URL_A, secret: TEST_WEBHOOK_SECRET }] });
    await relayWith({
      webhooks: [{ url: URL_A, secret: [TEST_WEBHOOK_SECRET, NEXT_WEBHOOK_SECRET], events: ['order.paid'] }],
      onPaid: () => undefined,
      allowPrivateWebhookTargets: false,
    });
  });

  const refusals: [string, Record<string, unknown>, RegExp][] = [
    ['not an array', { webhooks: {} }, /webhooks must be an array/],
    [
      'a URL that is not http(s)',
      { webhooks: [{ url: 'ftp://x.example', secret: TEST_WEBHOOK_SECRET }] },
      /webhooks\[0\]\.url/,
    ],
    [
      'a URL with credentials',
      { webhooks: [{ url: 'https://u:p@x.example', secret: TEST_WEBHOOK_SECRET }] },
      /webhooks\[0\]\.url/,
    ],
    [
      'one URL twice',
      {
        webhooks: [
          { url: URL_A, secret: TEST_WEBHOOK_SECRET },
          { url: URL_A, secret: TEST_WEBHOOK_SECRET },
        ],
      },
      /webhooks\[1\]\.url is given twice/,
    ],
    [
      'a secret that is not whsec_',
      { webhooks: [{ url: URL_A, secret: 'hunter2-not-a-secret' }] },
      /webhooks\[0\]\.secret/,
    ],
    [
      'a short secret in a rotation',
      { webhooks: [{ url: URL_A, secret: [TEST_WEBHOOK_SECRET, 'whsec_c2hvcnQ='] }] },
      /webhooks\[0\]\.secret\[1\]/,
    ],
    [
      'an unknown event',
      { webhooks: [{ url: URL_A, secret: TEST_WEBHOOK_SECRET, events: ['order.shipped'] }] },
      /webhooks\[0\]\.events/,
    ],
    [
      'allowPrivateWebhookTargets not a boolean',
      { allowPrivateWebhookTargets: 'yes', webhooks: [] },
      /allowPrivateWebhookTargets must be true or false/,
    ],
  ];
  for (const [what, options, message] of refusals) {
    it(`refuses ${what}, naming the field`, async () => {
      await assert.rejects(relayWith(options), (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, message);
        assert.ok(!error.message.includes('hunter2'), 'the secret is not quoted');
        return true;
      });
    });
  }

  it('needs a journal', () => {
    assert.throws(
      () =>
        createTestRelay(
          { baseUrl: BASE_URL, webhooks: [{ url: URL_A, secret: TEST_WEBHOOK_SECRET }] },
          createCheckoutRelay,
        ),
      /webhooks and watch need a journal/,
    );
  });

  it('still needs onPaid without webhooks', async () => {
    await assert.rejects(relayWith({ onPaid: undefined }), /give onPaid\(order\) or webhooks/);
  });

  it('is refused by the portable entry, which has no sender', async () => {
    await assert.rejects(
      relayWith({ webhooks: [{ url: URL_A, secret: TEST_WEBHOOK_SECRET }] }, portableRelay),
      /webhooks are sent from Node/,
    );
  });

  it('sends with the user-agent of this release', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    assert.equal(PAY_CHECKOUT_VERSION, pkg.version);
  });
});
