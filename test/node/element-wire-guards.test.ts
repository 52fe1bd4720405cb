import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readCreateAnswer, readErrorBody, readLookupAnswer } from '../../src/element/wire-guards.js';
import { paymentFailureCode } from '../../src/shared/service-contract.js';
import { createAnswerSchema, errorBodySchema, lookupAnswerSchema } from '../../src/shared/wire.js';

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
const order = fc.oneof(
  fc.record(
    { id: text, status: text, payment, completed_at: text, extra: fc.string() },
    { requiredKeys: ['id', 'status', 'payment'] },
  ),
  fc.constant(null),
  fc.array(fc.string()),
);
const answer = fc.oneof(
  fc.record({ order, lookup_token: text, more: fc.anything() }, { requiredKeys: ['order'] }),
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

describe('wire guards (zod-free reading of the relay answers)', () => {
  it('accepts exactly what createAnswerSchema accepts', () => {
    fc.assert(
      fc.property(answer, (json) => {
        assert.equal(readCreateAnswer(json) !== undefined, createAnswerSchema.safeParse(json).success);
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
        }
      }),
      { numRuns: 5000 },
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

  it('reads the contract’s own examples', () => {
    const created = {
      order: { id: 'or_1', status: 'requires_payment', payment: { status: 'requires_action' } },
      lookup_token: 't',
    };
    assert.deepEqual(readCreateAnswer(created), created);
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
