import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CREATE_RETRY_MAX_MS, parseRetryAfter } from '../../../src/element/checkout-api.js';
import { formatAmount } from '../../../src/element/format-amount.js';
import { allowedIssuers } from '../../../src/element/issuers.js';
import { EN_STRINGS } from '../../../src/element/locale/en.js';
import { FR_STRINGS } from '../../../src/element/locale/fr.js';
import {
  builtInLocale,
  loadStrings,
  registerLazyLocale,
  resolveStrings,
} from '../../../src/element/locale/loader.js';
import { formatCountdown } from '../../../src/element/pay-checkout.templates.js';
import { clampPollInterval } from '../../../src/element/poll-controller.js';
import { containsSecretKey } from '../../../src/element/secret-key-guard.js';
import { equalJitterDelay } from '../../../src/shared/backoff.js';
import { ISSUERS, NETWORKS } from '../../../src/shared/networks.js';

const normalise = (text: string) => text.replace(/\s/g, ' ');

describe('element helpers', () => {
  it('formats minor units with the cedi sign: Pay GH₵ 50.00', () => {
    assert.equal(normalise(formatAmount({ currency: 'ghs', value: 5000 }, 'en')), 'GH₵ 50.00');
    assert.equal(normalise(formatAmount({ currency: 'ghs', value: 123456 }, 'en-GH')), 'GH₵ 1,234.56');
    assert.equal(normalise(formatAmount({ currency: 'ghs', value: 5000 }, 'fr')), '50,00 GH₵');
    assert.equal(
      normalise(EN_STRINGS.pay(formatAmount({ currency: 'ghs', value: 5000 }, 'en'))),
      'Pay GH₵ 50.00',
    );
    assert.equal(
      formatAmount({ currency: 'ghs', value: 5000 }, 'not a locale!'),
      formatAmount({ currency: 'ghs', value: 5000 }, 'en'),
    );
    assert.equal(formatAmount(undefined, 'en'), '');
    for (const bad of [-1, 1.5, Number.NaN])
      assert.equal(formatAmount({ currency: 'ghs', value: bad }, 'en'), '');
    assert.equal(formatAmount({ currency: 'not-a-currency', value: 5000 }, 'en'), '');
  });

  it('clamps poll-interval to 2–5 s, 3 s by default', () => {
    assert.equal(clampPollInterval(undefined), 3000);
    assert.equal(clampPollInterval(Number.NaN), 3000);
    assert.equal(clampPollInterval(100), 2000);
    assert.equal(clampPollInterval(4000), 4000);
    assert.equal(clampPollInterval(60_000), 5000);
  });

  it('backs off exponentially with jitter, within its cap', () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const delay = equalJitterDelay(attempt, 700, CREATE_RETRY_MAX_MS);
      const ceiling = Math.min(CREATE_RETRY_MAX_MS, 700 * 2 ** attempt);
      assert.ok(delay >= ceiling / 2 - 1 && delay <= ceiling, `${attempt}: ${delay}`);
    }
  });

  it('reads Retry-After in seconds', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    assert.equal(parseRetryAfter(' 0 '), 0);
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(parseRetryAfter('soon'), undefined);
  });

  it('shows the countdown as m:ss', () => {
    assert.equal(formatCountdown(360), '6:00');
    assert.equal(formatCountdown(59), '0:59');
    assert.equal(formatCountdown(-3), '0:00');
  });

  it('restricts networks with the issuers attribute, and ignores what it does not know', () => {
    assert.deepEqual(allowedIssuers('telecel, MTN'), ['mtn', 'telecel']);
    assert.deepEqual(allowedIssuers(''), [...ISSUERS]);
    assert.deepEqual(allowedIssuers('vodafone'), [...ISSUERS]);
    assert.equal(NETWORKS.mtn.ussdCode, '*170#');
    assert.equal(NETWORKS.telecel.ussdCode, '*110#');
    assert.equal(NETWORKS.at.ussdCode, '*110#');
  });

  it('spots secret keys anywhere a page can put one, and not in look-alikes', () => {
    assert.equal(containsSecretKey('sk_live_abc'), true);
    assert.equal(containsSecretKey(['x', { cart: { note: 'sk_test_123' } }]), true);
    assert.equal(containsSecretKey({ items: [{ sk_live_key: 1 }] }), true);
    assert.equal(containsSecretKey('/api/orders?key=sk_live_abc'), true);
    assert.equal(containsSecretKey({ pay: () => 'sk_live_in_a_function_is_not_data' }), false);
    assert.equal(containsSecretKey(['pk_test_sandbox', 'desk_test_1', 'task_live_2', null, 5]), false);
    // A server-created checkout's client secret (`checkout`) is for pages: no key.
    assert.equal(containsSecretKey(`cs_${'A'.repeat(24)}_secret_${'b'.repeat(43)}`), false);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    assert.equal(containsSecretKey(circular), false);
  });

  it('has every string in French too, and picks the locale from a BCP 47 tag', async () => {
    assert.deepEqual(Object.keys(FR_STRINGS).sort(), Object.keys(EN_STRINGS).sort());
    for (const [key, value] of Object.entries(FR_STRINGS)) {
      if (typeof value === 'string') assert.notEqual(value, '', key);
    }
    assert.equal(builtInLocale('fr-CI'), 'fr');
    assert.equal(builtInLocale('FR'), 'fr');
    assert.equal(builtInLocale('en-GH'), 'en');
    assert.equal(builtInLocale('tw'), 'en');
    assert.equal(builtInLocale(undefined), 'en');
    // Until an entry point registers French, a French checkout speaks English.
    assert.equal(loadStrings('fr'), undefined);
    assert.equal(resolveStrings('fr').formTitle, EN_STRINGS.formTitle);
    // The npm entry's way: French is fetched on first use; English stands in until it is here.
    let fetches = 0;
    registerLazyLocale('fr', async () => {
      fetches++;
      return (await import('../../../src/element/locale/fr.js')).FR_STRINGS;
    });
    assert.equal(loadStrings('en-GH'), undefined);
    assert.equal(resolveStrings('fr').checkAgain, EN_STRINGS.checkAgain);
    const loading = loadStrings('fr-CI');
    assert.ok(loading instanceof Promise);
    assert.equal(loadStrings('fr'), loading, 'one download, however many checkouts ask');
    await loading;
    assert.equal(loadStrings('fr'), undefined);
    assert.equal(fetches, 1);
    assert.equal(resolveStrings('fr', { formTitle: 'Payez' }).formTitle, 'Payez');
    assert.equal(resolveStrings('fr', { formTitle: 'Payez' }).checkAgain, FR_STRINGS.checkAgain);
  });

  it('speaks French at once where French is registered as texts, as the embed does', async () => {
    // A fresh copy of the loader: the page of an embed, where nothing was fetched.
    const loader = (await import(
      `../../../src/element/locale/loader.js?embed=${Date.now()}`
    )) as typeof import('../../../src/element/locale/loader.js');
    loader.registerLocale('fr', FR_STRINGS);
    assert.equal(loader.loadStrings('fr-CI'), undefined, 'nothing to wait for');
    assert.equal(loader.resolveStrings('fr').formTitle, FR_STRINGS.formTitle);
  });
});
