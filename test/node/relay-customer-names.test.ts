/**
 * Contract §7, Names: a customer name is NFC-normalised, must contain a
 * visible character, and may not contain control or bidirectional-override
 * characters or lone surrogates: `400` with `param` `customer_data.name`.
 * The element's form gives the same verdicts (element-checkout-form.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkForm } from '../../src/element/checkout-form.js';
import { checkoutIntentSchema } from '../../src/shared/wire.js';
import { customerPayingFrom, LOCAL_NUMBER } from '../fixtures/checkout-data.js';
import { hostileName, RUNS } from '../fixtures/property.js';
import { createRequest, errorOf, intent, relayStack } from '../fixtures/relay.js';

const { events, relayWith } = relayStack();
const relay = relayWith({ rateLimit: false });

const REFUSED = [
  ['NUL', 'Ama\u0000Mensah'],
  ['a bell', 'Ama\u0007'],
  ['a line break', 'Ama\nMensah'],
  ['a right-to-left override', '\u202eAma Mensah'],
  ['a left-to-right isolate', 'Ama \u2066Mensah'],
  ['a right-to-left mark', 'Ama\u200f'],
  ['only a zero-width space', '\u200b'],
  ['only zero-width joiners and marks', '\u200d\u0301'],
  ['a lone high surrogate', 'Ama\ud800'],
  ['a lone low surrogate', '\udc00Ama'],
  ['a C1 control', 'Ama\u009b'],
] as const;

const ACCEPTED = [
  'Ama Mensah',
  'Kwame Nkrumah-Boateng',
  'Zoë O’Neil',
  'Ọ̀ṣun Adé',
  '李小龙',
  'أحمد',
  'क्‍षमा',
  'Ama 👋',
];

async function createNamed(name: string): Promise<Response> {
  return relay.create(createRequest(intent(customerPayingFrom(LOCAL_NUMBER, name))), {
    clientAddress: '192.0.2.1',
  });
}

describe('customer names at the relay', () => {
  for (const [what, name] of REFUSED) {
    it(`refuses a name with ${what}: 400 on customer_data.name`, async () => {
      const response = await createNamed(name);
      assert.equal(response.status, 400);
      const error = await errorOf(response);
      assert.equal(error.param, 'customer_data.name');
      assert.equal(error.code, 'invalid_request');
    });
  }

  it('accepts names of every script, with joiners where a script needs them', async () => {
    for (const name of ACCEPTED) {
      const response = await createNamed(name);
      assert.equal(response.status, 200, `${name}: ${await response.clone().text()}`);
    }
  });

  it('keeps the NFC form: "Ame\\u0301lie" reaches the service as "Amélie"', async () => {
    events.length = 0;
    assert.equal((await createNamed('  Ame\u0301lie  ')).status, 200);
    const created = events.find((event) => event.type === 'order_created');
    assert.equal(created?.type === 'order_created' && created.customer.name, 'Am\u00e9lie');
  });

  it('never answers a 5xx to a hostile name, and refuses exactly what the schema and the form refuse', async () => {
    await fc.assert(
      fc.asyncProperty(hostileName, async (name) => {
        const response = await createNamed(name);
        assert.ok(
          response.status === 200 || response.status === 400,
          `${response.status} for ${JSON.stringify(name)}`,
        );
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        const schemaAccepts = checkoutIntentSchema.safeParse(
          intent(customerPayingFrom(LOCAL_NUMBER, name)),
        ).success;
        const formAccepts = checkForm(
          { customer_name: name, number: LOCAL_NUMBER, issuer: 'mtn' },
          ['mtn'],
          null,
        ).ok;
        assert.equal(response.status === 200, schemaAccepts, JSON.stringify(name));
        assert.equal(formAccepts, schemaAccepts, JSON.stringify(name));
        if (response.status === 400) assert.equal((await errorOf(response)).param, 'customer_data.name');
      }),
      { numRuns: Math.min(RUNS, 200) },
    );
  });
});
