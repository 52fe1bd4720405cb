import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  readAmount,
  readCreateAnswer,
  readErrorBody,
  readLookupAnswer,
  readPriceAnswer,
} from '../../../src/element/wire-guards.js';
import { paymentFailureCode } from '../../../src/shared/service-contract.js';
import {
  amountChangedSchema,
  createAnswerSchema,
  errorBodySchema,
  lookupAnswerSchema,
  priceAnswerSchema,
} from '../../../src/shared/wire.js';

// Values near the real shapes, so the property explores the edges rather than noise.
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constant(undefined), fc.integer(), fc.constant(null));
// Failure reasons the checkout knows, others a fuller service might send, and junk.
const failureCode = fc.oneof(fc.constantFrom('declined', 'insufficient_funds', 'suspected_fraud', ''), text);
const payment = fc.oneof(
  fc.record({ status: text, failure_code: failureCode }, { requiredKeys: ['status'] }),
  fc.constant(null),
  fc.string(),
  fc.constant(undefined),
);
// `order.amount`: whole minor units, and what an older or broken relay might send instead.
const value = fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constant(2 ** 53), text);
const amount = fc.oneof(
  fc.record({ currency: text, value, extra: fc.string() }, { requiredKeys: ['currency', 'value'] }),
  fc.record({ currency: fc.constant('ghs'), value: fc.nat() }),
  text,
  fc.constant([]),
);
const order = fc.oneof(
  fc.record(
    { id: text, status: text, payment, completed_at: text, amount, extra: fc.string() },
    { requiredKeys: ['id', 'status', 'payment'] },
  ),
  fc.constant(null),
  fc.array(fc.string()),
);
const answer = fc.oneof(
  fc.record({ order, lookup_token: text, reference: text, more: fc.anything() }, { requiredKeys: ['order'] }),
  fc.anything(),
);
const errorBody = fc.oneof(
  fc.record({
    error: fc.oneof(
      fc.record(
        { code: text, message: text, type: text, param: text },
        { requiredKeys: ['code', 'message'] },
      ),
      fc.anything(),
    ),
  }),
  fc.anything(),
);

// The price answer (`price-url`): line items as the merchant returned them, and what a broken relay might send.
const line = fc.oneof(
  fc.record(
    {
      name: text,
      quantity: fc.oneof(fc.integer(), fc.double(), text),
      unit_price: amount,
      extra: fc.string(),
    },
    { requiredKeys: ['name', 'quantity', 'unit_price'] },
  ),
  fc.record({
    name: fc.string(),
    quantity: fc.integer(),
    unit_price: fc.record({ currency: fc.constant('ghs'), value: fc.nat() }),
  }),
  text,
);
const priceAnswer = fc.oneof(
  fc.record(
    {
      amount,
      line_items: fc.oneof(fc.array(line, { maxLength: 3 }), text),
      reference: text,
      more: fc.anything(),
    },
    { requiredKeys: ['amount', 'line_items'] },
  ),
  fc.record({
    amount: fc.record({ currency: fc.constant('ghs'), value: fc.nat() }),
    line_items: fc.array(line, { maxLength: 3 }),
    reference: fc.oneof(fc.string(), fc.constant(null)),
  }),
  fc.anything(),
);

/** The amount's own fields, as the schema keeps them: extra fields are the relay's business. */
function pick(amount: { currency: string; value: number } | undefined) {
  return amount && { currency: amount.currency, value: amount.value };
}

describe('wire guards (zod-free reading of the relay answers)', () => {
  it('accepts exactly what createAnswerSchema accepts, and reads the same amount and reference', () => {
    fc.assert(
      fc.property(answer, (json) => {
        const parsed = createAnswerSchema.safeParse(json);
        const read = readCreateAnswer(json);
        assert.equal(read !== undefined, parsed.success);
        // An amount or a reference the checkout cannot read is none (the session reads a reference as a string or nothing).
        if (parsed.success && read) {
          assert.deepEqual(pick(readAmount(read.order.amount)), parsed.data.order.amount);
          const reference = typeof read.reference === 'string' ? read.reference : undefined;
          assert.equal(reference, parsed.data.reference ?? undefined);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts exactly what lookupAnswerSchema accepts, and keeps the same failure reason', () => {
    fc.assert(
      fc.property(answer, (json) => {
        const parsed = lookupAnswerSchema.safeParse(json);
        const read = readLookupAnswer(json);
        assert.equal(read !== undefined, parsed.success);
        // The element keeps a reason only through the allow-list, where the schema drops any other.
        if (parsed.success && read) {
          assert.equal(
            paymentFailureCode(read.order.payment.failure_code),
            parsed.data.order.payment.failure_code,
          );
          assert.deepEqual(pick(readAmount(read.order.amount)), parsed.data.order.amount);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts exactly what priceAnswerSchema accepts, and reads the same amount and line items', () => {
    let accepted = 0;
    fc.assert(
      fc.property(priceAnswer, (json) => {
        const parsed = priceAnswerSchema.safeParse(json);
        const read = readPriceAnswer(json);
        assert.equal(read !== undefined, parsed.success);
        if (parsed.success && read) {
          accepted++;
          assert.deepEqual(pick(read.amount), parsed.data.amount);
          assert.deepEqual(
            read.line_items.map(({ name, quantity }) => [name, quantity]),
            parsed.data.line_items.map(({ name, quantity }) => [name, quantity]),
          );
          assert.equal(read.reference, parsed.data.reference);
        }
      }),
      { numRuns: 5000 },
    );
    assert.ok(accepted > 100, `the property reached valid answers (${accepted})`);
  });

  it('reads the new amount beside a 409 amount_changed as amountChangedSchema does', () => {
    fc.assert(
      fc.property(
        fc.record({
          error: fc.constant({ code: 'amount_changed', message: 'm', type: 'invalid_request_error' }),
          amount,
        }),
        (json) => {
          const parsed = amountChangedSchema.safeParse(json);
          assert.equal(readAmount(json.amount) !== undefined, parsed.success);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('accepts exactly what errorBodySchema accepts, and gives back its error', () => {
    fc.assert(
      fc.property(errorBody, (json) => {
        const parsed = errorBodySchema.safeParse(json);
        const read = readErrorBody(json);
        assert.equal(read !== undefined, parsed.success);
        if (parsed.success && read) {
          assert.equal(read.code, parsed.data.error.code);
          assert.equal(read.param, parsed.data.error.param);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('reads the contract’s own examples, with and without order.amount and reference', () => {
    const created = {
      order: { id: 'or_1', status: 'requires_payment', payment: { status: 'requires_action' } },
      lookup_token: 't',
    };
    assert.deepEqual(readCreateAnswer(created), created);
    const charged = { currency: 'ghs', value: 16500 };
    const withAmount = { ...created, order: { ...created.order, amount: charged }, reference: 'cart-8812' };
    assert.deepEqual(readCreateAnswer(withAmount), withAmount);
    assert.deepEqual(readAmount(withAmount.order.amount), charged);
    for (const unreadable of [
      undefined,
      null,
      '16500',
      { currency: 'ghs' },
      { currency: 'ghs', value: -1 },
      { value: 1 },
    ])
      assert.equal(readAmount(unreadable), undefined, JSON.stringify(unreadable));
    const looked = {
      order: {
        id: 'or_1',
        status: 'completed',
        completed_at: '2025-01-01T00:00:00Z',
        payment: { status: 'paid' },
      },
    };
    assert.deepEqual(readLookupAnswer(looked), looked);
    assert.equal(readLookupAnswer({ order: { ...looked.order, completed_at: 5 } }), undefined);
    assert.deepEqual(
      readErrorBody({ error: { code: 'c', message: 'm', type: 't', param: 'customer_data.name' } }),
      {
        code: 'c',
        message: 'm',
        type: 't',
        param: 'customer_data.name',
      },
    );
  });
});
