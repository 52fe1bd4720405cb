/**
 * Customer names: a customer name is NFC-normalised, must contain a
 * visible character, and may not contain control or bidirectional-override
 * characters or lone surrogates: `400` with `param` `customer_data.name`.
 * The element's form gives the same verdicts (element-checkout-form.test.ts).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { checkForm } from '../../../src/element/checkout-form.js';
import { listen } from '../../../src/http/node/index.js';
import { checkoutIntentSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { hostileName, RUNS } from '../../fixtures/property.js';
import { createRequest, errorOf, intent, relayStack } from '../../fixtures/relay.js';

const { events, relayWith } = relayStack();
const relay = relayWith({ rateLimit: false });

/**
 * Names that render as blank space: letters and symbols by category that show
 * nothing (the Hangul fillers, the Braille blank, the musical null notehead),
 * alone or with the invisible characters they are usually padded with.
 */
const BLANK_NAMES = [
  ['Hangul fillers', '\u3164\u3164\u3164'],
  ['a halfwidth Hangul filler', '\uffa0'],
  ['Hangul choseong and jungseong fillers', '\u115f\u1160'],
  ['Braille blanks', '\u2800\u2800'],
  ['a musical null notehead', '\u{1D159}'],
  ['musical beams and ties', '\u{1D173}\u{1D17A}'],
  ['a Mongolian vowel separator', '\u180e'],
  ['word joiners and invisible operators', '\u2060\u2061\u2062\u2063\u2064'],
  ['a byte order mark and a soft hyphen', '\ufeff\u00ad'],
  ['ideographic spaces around a filler', '\u3000\u3164\u3000'],
  ['a grapheme joiner and Khmer inherent vowels', '\u034f\u17b4\u17b5'],
  ['variation selectors', '\ufe0f\u{E0100}'],
  ['tag characters', '\u{E0001}\u{E0041}\u{E007F}'],
  ['fillers and joiners mixed', '\u3164\u200b\u2800\u200d\uffa0'],
] as const;

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
  ...BLANK_NAMES.map(([what, name]) => [`only ${what}`, name] as const),
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
  // Real letters keep a name valid whatever blank characters come with them.
  'Ama\u3164Mensah',
  '\u2800Kofi\u2800',
  '김\u1160민준',
  'Ama \u{1D159}',
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

  it('refuses names that render blank over real HTTP too, and keeps the names with letters', async () => {
    const server = await listen(relay.node);
    after(() => server.close());
    const send = (name: string) =>
      fetch(`${server.url}/api/checkout/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify(intent(customerPayingFrom(LOCAL_NUMBER, name))),
      });
    for (const [what, name] of BLANK_NAMES) {
      const response = await send(name);
      assert.equal(response.status, 400, what);
      assert.equal((await errorOf(response)).param, 'customer_data.name', what);
    }
    const withLetters = await send('Ama\u3164Mensah');
    assert.equal(withLetters.status, 200, await withLetters.clone().text());
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
