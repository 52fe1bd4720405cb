/**
 * The relay's own lookups check the service's answer with a written-out check
 * instead of parsing `orderLookupAnswerSchema`: it must accept exactly what
 * the schema accepts, or a malformed answer would reach the shopper (or a
 * good one be refused). Every field of a real answer is broken every way,
 * one and several at a time, and the two verdicts compared.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isOrderLookupAnswer } from '../../../src/server/service-client/order-answer-check.js';
import {
  orderLookupAnswerSchema,
  orderLookupInputSchema,
  SERVICE_ORDER_ID_PATTERN,
} from '../../../src/server/service-client/service-schemas.js';

const ANSWER = {
  order: {
    id: 'or_p7jTqSgI1btoLj8vXwe4FiUO',
    status: 'requires_payment',
    initiated_at: '2026-11-26T13:04:31.033Z',
    completed_at: '2026-11-26T13:05:31.033Z',
    line_item_group: { products_count: 1, total: { currency: 'ghs', value: 5000 } },
    line_items: [
      {
        type: 'product',
        product: { name: 'Kente tote', price: { currency: 'ghs', value: 5000 }, quantity: 1 },
      },
    ],
    customer: { id: 'py_XldUq9RlQUgq9JpaRIpEdETB', name: 'Ama Mensah', phone_number: '+233241234567' },
    payment: { status: 'requires_action', otp_id: 'otp_9nA3IbYiRQFPLsEy1HJIntSw' },
  },
};

/** Every path to a value in `value`, objects and arrays alike, the root included. */
function pathsOf(value: unknown, path: string[] = []): string[][] {
  const paths = [path];
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value))
      paths.push(...pathsOf((value as Record<string, unknown>)[key], [...path, key]));
  }
  return paths;
}

const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  '',
  'or_',
  'or_x',
  'or_\n',
  'OR_x',
  'ghs',
  'GHS',
  'gh',
  'ghsa',
  0,
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  -Number.MAX_SAFE_INTEGER - 1,
  1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  true,
  [],
  ['ghs'],
  {},
  { status: 'paid' },
  { currency: 'ghs', value: 1 },
];

/** `ANSWER` with the value at each of `edits`' paths replaced (`undefined` deletes the key). */
function edited(edits: [string[], unknown][]): unknown {
  let root: unknown = structuredClone(ANSWER);
  for (const [path, replacement] of edits) {
    if (path.length === 0) {
      root = replacement;
      continue;
    }
    let parent: unknown = root;
    for (const key of path.slice(0, -1)) parent = (parent as Record<string, unknown> | null)?.[key];
    if (typeof parent !== 'object' || parent === null) continue;
    const last = path.at(-1) as string;
    if (replacement === undefined) delete (parent as Record<string, unknown>)[last];
    else (parent as Record<string, unknown>)[last] = structuredClone(replacement);
  }
  return root;
}

function assertSameVerdict(answer: unknown, label: string): void {
  assert.equal(isOrderLookupAnswer(answer), orderLookupAnswerSchema.safeParse(answer).success, label);
}

describe('the written-out check of a lookup answer', () => {
  const paths = pathsOf(ANSWER);

  it('accepts the real answer, with and without its optional fields', () => {
    assert.equal(isOrderLookupAnswer(ANSWER), true);
    assert.equal(isOrderLookupAnswer(edited([[['order', 'completed_at'], undefined]])), true);
    assert.equal(isOrderLookupAnswer(edited([[['order', 'customer'], undefined]])), true);
  });

  it('agrees with the schema on every field replaced by every kind of value', () => {
    for (const path of paths) {
      for (const replacement of REPLACEMENTS) {
        assertSameVerdict(edited([[path, replacement]]), `${path.join('.')} = ${String(replacement)}`);
      }
    }
  });

  it('agrees with the schema on several fields broken at once', () => {
    const edit = fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...REPLACEMENTS));
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        assertSameVerdict(edited(edits), JSON.stringify(edits));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with the schema on whatever JSON comes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assertSameVerdict(value, JSON.stringify(value));
        assertSameVerdict({ order: value }, JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes an order id matching the pattern exactly when the lookup body schema does, and sends it as is', () => {
    const ids = fc.oneof(
      fc.string(),
      fc.string().map((tail) => `or_${tail}`),
      fc.constantFrom('or_', 'or_\n', 'or_a\n'),
    );
    fc.assert(
      fc.property(ids, (id) => {
        const parsed = orderLookupInputSchema.safeParse({ order_id: id });
        assert.equal(SERVICE_ORDER_ID_PATTERN.test(id), parsed.success, JSON.stringify(id));
        if (parsed.success) assert.deepEqual(parsed.data, { order_id: id });
      }),
      { numRuns: 3000 },
    );
  });
});
