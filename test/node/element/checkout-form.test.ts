import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  checkForm,
  FIELD_ORDER,
  type FormValues,
  fieldForParam,
  formatLocalNumber,
  refusedFieldError,
} from '../../../src/element/checkout-form.js';
import { allowedIssuers } from '../../../src/element/issuers.js';
import { detectIssuer } from '../../../src/shared/ghana-mobile-money.js';
import { CUSTOMER_NAME_MAX_LENGTH, ISSUERS, type Issuer } from '../../../src/shared/service-contract.js';
import { checkoutIntentSchema } from '../../../src/shared/wire.js';
import { CUSTOMER_NAME, checkoutIntent, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { hostileName } from '../../fixtures/property.js';

const ALL = [...ISSUERS];

function form(values: Partial<FormValues>): FormValues {
  return { customer_name: CUSTOMER_NAME, number: LOCAL_NUMBER, issuer: 'mtn', ...values };
}

describe('checkout form', () => {
  it('accepts every way a Ghanaian number is written and sends both forms of it', () => {
    for (const typed of [
      '024 123 4567',
      '0241234567',
      '233241234567',
      '+233 24 123 4567',
      '(024) 123-4567',
    ]) {
      const check = checkForm(form({ number: typed }), ALL, null);
      assert.ok(check.ok, typed);
      assert.deepEqual(check.intent, checkoutIntent({ cart: null }));
    }
  });

  it('detects the network from the prefix (MTN, Telecel, AT), as soon as three digits are typed', () => {
    const expected: Record<string, Issuer> = {
      '024': 'mtn',
      '025': 'mtn',
      '053': 'mtn',
      '054': 'mtn',
      '055': 'mtn',
      '059': 'mtn',
      '020': 'telecel',
      '050': 'telecel',
      '026': 'at',
      '027': 'at',
      '056': 'at',
      '057': 'at',
    };
    for (const [prefix, issuer] of Object.entries(expected)) {
      assert.equal(detectIssuer(prefix), issuer, prefix);
      assert.equal(detectIssuer(`+233 ${prefix.slice(1)} 123`), issuer, prefix);
    }
    assert.equal(detectIssuer('02'), undefined);
    assert.equal(detectIssuer('0301234567'), undefined);
  });

  it('trims the name and says why each field is wrong', () => {
    assert.equal((checkForm(form({ customer_name: '  Ama  ' }), ALL, null) as { ok: true }).ok, true);
    const empty = checkForm({ customer_name: ' ', number: '', issuer: '' }, ALL, null);
    assert.deepEqual(empty, {
      ok: false,
      errors: { customer_name: 'nameRequired', number: 'numberRequired', issuer: 'issuerRequired' },
    });
    const wrong = checkForm(
      form({ customer_name: 'x'.repeat(CUSTOMER_NAME_MAX_LENGTH + 1), number: '0301234567' }),
      ALL,
      1,
    );
    assert.deepEqual(wrong, { ok: false, errors: { customer_name: 'nameTooLong', number: 'numberInvalid' } });
  });

  it('tells the shopper before sending that a name of blank-rendering letters is no name', () => {
    for (const blank of ['\u3164', '\uffa0', '\u115f\u1160', '\u2800', '\u{1D159}', '\u3164\u200b\u2800']) {
      const check = checkForm(form({ customer_name: blank }), ALL, null);
      assert.deepEqual(check, { ok: false, errors: { customer_name: 'nameInvalid' } }, JSON.stringify(blank));
    }
    assert.equal(checkForm(form({ customer_name: 'Ama\u3164Mensah' }), ALL, null).ok, true);
  });

  it('refuses a network the page does not offer', () => {
    const check = checkForm(form({ issuer: 'at' }), allowedIssuers('mtn, telecel'), null);
    assert.deepEqual(check, { ok: false, errors: { issuer: 'issuerRequired' } });
  });

  it('lists the fields in the order they are shown, for focusing the first invalid one', () => {
    assert.deepEqual(FIELD_ORDER, ['customer_name', 'number', 'issuer']);
  });

  it('maps the relay’s error.param to the field it names', () => {
    assert.equal(fieldForParam('customer_data.name'), 'customer_name');
    assert.equal(fieldForParam('customer_data.phone_number'), 'number');
    assert.equal(fieldForParam('payment_method_data.mobile_money.number'), 'number');
    assert.equal(fieldForParam('payment_method_data.mobile_money.issuer'), 'issuer');
    assert.equal(fieldForParam('cart'), undefined);
    assert.equal(fieldForParam(undefined), undefined);
    assert.equal(refusedFieldError('customer_name'), 'nameInvalid');
    assert.equal(refusedFieldError('number'), 'numberInvalid');
    assert.equal(refusedFieldError('issuer'), 'issuerRequired');
  });

  it('formats local numbers the way they are read out', () => {
    assert.equal(formatLocalNumber('0241234567'), '024 123 4567');
    assert.equal(formatLocalNumber('024123'), '024123');
  });

  it('agrees with checkoutIntentSchema: sends only what the relay accepts, refuses what it refuses', () => {
    const digits = fc.stringMatching(/^\d{0,11}$/);
    const number = fc.oneof(
      fc.constantFrom('0241234567', '024 123 4567', '+233201234567', '233571234567', '0591234567'),
      fc.tuple(fc.constantFrom('0', '+233', '233', '', '+44'), digits).map(([prefix, rest]) => prefix + rest),
      fc.string(),
    );
    const name = fc.oneof(
      fc.string({ maxLength: 130 }),
      fc.constantFrom('', '   ', 'x'.repeat(120), 'x'.repeat(121), '\u202eAma', '\u200b', 'Ame\u0301lie'),
      hostileName,
    );
    const issuer = fc.constantFrom<Issuer | ''>('', 'mtn', 'telecel', 'at');
    fc.assert(
      fc.property(name, number, issuer, (customerName, typedNumber, chosenIssuer) => {
        const values = { customer_name: customerName, number: typedNumber, issuer: chosenIssuer };
        const check = checkForm(values, ALL, { items: [1] });
        if (check.ok) {
          const parsed = checkoutIntentSchema.safeParse(check.intent);
          assert.ok(parsed.success, JSON.stringify(check.intent));
          assert.deepEqual(parsed.data, check.intent);
          return;
        }
        // What the form refuses, the schema refuses too (given the form's normalisation).
        const digitsOnly = typedNumber.replace(/[\s\-.()]/g, '');
        const local = digitsOnly.replace(/^(?:\+233|233)/, '0');
        const parsed = checkoutIntentSchema.safeParse({
          customer_data: { name: customerName, phone_number: `+233${local.slice(1)}` },
          payment_method_data: {
            type: 'mobile_money',
            mobile_money: { issuer: chosenIssuer, number: local },
          },
          cart: null,
        });
        assert.equal(parsed.success, false, JSON.stringify(values));
      }),
      { numRuns: 2000 },
    );
  });
});
