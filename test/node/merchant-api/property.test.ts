/**
 * Property-based tests of the merchant API's parsers: random and hostile
 * checkout bodies (a valid one mutated, random JSON, deep nesting, broken
 * JSON, bytes that are not UTF-8, `__proto__` keys) and random
 * `Authorization` headers, against the real handler on a real relay and
 * SQLite journal. Every answer is a `201` for a checkout whose amount is
 * the sum of its lines, or a `4xx` in the error shape; never a `5xx`, never
 * the key quoted, and no prototype polluted. Only the exact key gets past
 * the check.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  bodyBytes,
  contentType,
  hostileBody,
  mutatedBody,
  prototypeSnapshot,
} from '../../fixtures/hostile-json.js';
import { API_KEY, merchantApiStack } from '../../fixtures/merchant-api.js';
import {
  assertErrorShape,
  assertNothingBroke,
  headerText,
  headerValue,
  RUNS,
} from '../../fixtures/property.js';

const VALID_CHECKOUT = {
  line_items: [
    { name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 }, sku: 'kente-tote' },
    { name: 'Adinkra scarf', quantity: 1, unit_price: { currency: 'ghs', value: 4_000 } },
  ],
  reference: 'order-701',
  metadata: { channel: 'web' },
  expires_in: 600,
};

describe('the merchant API under hostile input', () => {
  it('answers any checkout body with a 201 that adds up or a 4xx in the error shape, never a 5xx', async () => {
    const stack = await merchantApiStack({}, { failedAuthLimit: false });
    const prototypesBefore = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: mutatedBody(VALID_CHECKOUT) }, hostileBody),
        contentType,
        async (body, type) => {
          const request = new Request('http://127.0.0.1/v1/checkouts', {
            method: 'POST',
            headers: { authorization: `Bearer ${API_KEY}`, ...(type ? { 'content-type': type } : {}) },
            body: bodyBytes(body) as Uint8Array<ArrayBuffer>,
          });
          const response = await stack.api(request);
          const answer = { status: response.status, text: await response.text() };
          assertNothingBroke(answer, API_KEY, prototypesBefore, body.how);
          if (answer.status !== 201) {
            assertErrorShape(answer);
            return;
          }
          const created = JSON.parse(answer.text);
          const total = created.line_items.reduce(
            (sum: number, item: { quantity: number; unit_price: { value: number } }) =>
              sum + item.quantity * item.unit_price.value,
            0,
          );
          assert.equal(created.amount.value, total, body.how);
          assert.equal(created.status, 'open');
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('lets only the exact key past, whatever the Authorization header holds', async () => {
    const stack = await merchantApiStack({}, { failedAuthLimit: false });
    const nearKey = fc
      .tuple(fc.nat({ max: API_KEY.length }), fc.string({ maxLength: 3 }), fc.nat({ max: 3 }))
      .map(([at, insert, drop]) => API_KEY.slice(0, at) + insert + API_KEY.slice(at + drop));
    const header = fc.oneof(
      headerText,
      nearKey.map((key) => `Bearer ${key}`),
      fc.constantFrom('Bearer', 'Bearer  ', `Bearer ${API_KEY} x`, `Bearer\t${API_KEY}`, `Token ${API_KEY}`),
    );
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        const request = new Request('http://127.0.0.1/v1/orders?reference=order-701', {
          headers: { authorization },
        });
        const response = await stack.api(request);
        const text = await response.text();
        const exact = /^Bearer +(\S+) *$/i.exec(headerValue(authorization))?.[1] === API_KEY;
        assert.equal(response.status, exact ? 200 : 401, authorization);
        assert.ok(!text.includes(API_KEY), 'the key is never quoted');
      }),
      { numRuns: RUNS },
    );
  });
});
