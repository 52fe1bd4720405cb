import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AttemptStorage, AttemptStore, attemptStorageKey } from '../../../src/element/attempt-store.js';
import {
  type CheckoutAttempt,
  type CreatedAttempt,
  isStoredAttempt,
  newIdempotencyKey,
  settledAttempt,
} from '../../../src/element/checkout-attempt.js';
import { isValidIdempotencyKey } from '../../../src/shared/wire.js';
import { checkoutIntent, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { memoryStorage } from '../../fixtures/memory-storage.js';

const attempt: CreatedAttempt = {
  version: 3,
  phase: 'created',
  idempotencyKey: '6f1c1c9e-2c6b-4f5e-9b1a-1f2e3d4c5b6a',
  state: { status: 'requires_action' },
  startedAt: 1_700_000_000_000,
  orderId: 'or_abc',
  lookupToken: 'token',
  deadline: 1_700_000_360_000,
  issuer: 'mtn',
  localNumber: LOCAL_NUMBER,
  amount: { currency: 'ghs', value: 5000 },
  fired: ['pay-submit', 'pay-created', 'pay-requires-action'],
};

/** One valid attempt per phase. */
const phases: CheckoutAttempt[] = [
  {
    ...attempt,
    phase: 'draft',
    state: { status: 'error', cause: 'create', retryable: true },
    body: JSON.stringify(checkoutIntent({ cart: null })),
    issuer: 'mtn',
    localNumber: LOCAL_NUMBER,
  },
  attempt,
  { ...settledAttempt(attempt, 'paid', undefined), state: { status: 'paid' } },
];

describe('attempt store', () => {
  it('keeps an attempt across instances, as a reload would find it, and forgets it on clear', () => {
    const storage = memoryStorage();
    const key = () => attemptStorageKey('/api/checkout/orders', 'checkout');
    for (const kept of phases) {
      const store = new AttemptStore(storage, key);
      store.save(structuredClone(kept));
      // The number stays while the payer decides, for the screen after a reload; a settled payment keeps it masked only.
      assert.deepEqual(new AttemptStore(storage, key).load(), JSON.parse(JSON.stringify(kept)), kept.phase);
    }
    const settled = phases[2] as CheckoutAttempt & { localNumber?: string; masked?: string };
    assert.equal(settled.localNumber, undefined);
    assert.equal(settled.masked, '024 ••• 4567');
    new AttemptStore(storage, key).forget();
    assert.equal(new AttemptStore(storage, key).load(), undefined);
  });

  it('keeps nothing without a key (persist="none"), and never stores a refusal', () => {
    const storage = memoryStorage();
    const none = new AttemptStore(storage, () => undefined);
    none.save(structuredClone(attempt));
    assert.equal(storage.map.size, 0);
    const store = new AttemptStore(storage, () => 'k');
    store.save({ phase: 'none', state: { status: 'error', cause: 'config', retryable: false } });
    assert.equal(storage.map.size, 0);
  });

  it('forgets a create the relay refused for good: it created nothing', () => {
    const storage = memoryStorage();
    const refused = { ...phases[0], state: { status: 'error', cause: 'create', retryable: false } };
    storage.map.set('k', JSON.stringify(refused));
    assert.equal(new AttemptStore(storage, () => 'k').load(), undefined);
    assert.equal(storage.map.size, 0);
  });

  it('remembers which events an attempt fired, in storage too', () => {
    const storage = memoryStorage();
    const store = new AttemptStore(storage, () => 'k');
    store.save(structuredClone({ ...attempt, fired: ['pay-paid'] }));
    assert.deepEqual(new AttemptStore(storage, () => 'k').load()?.fired, ['pay-paid'], 'a reload finds it');
  });

  it('keeps the checkout’s other open orders beside its attempt, with their numbers while open, and only those it can trust', () => {
    const storage = memoryStorage();
    const store = new AttemptStore(storage, () => 'k');
    const earlier: CreatedAttempt = { ...attempt, orderId: 'or_earlier', lookupToken: 'token-earlier' };
    store.save(structuredClone(attempt));
    store.saveOthers([structuredClone(earlier)]);
    const reloaded = new AttemptStore(storage, () => 'k');
    // Its number stays while its payer may approve: the same number again takes it up, "Use another number" names it.
    const withoutNumber = earlier;
    assert.deepEqual(reloaded.loadOthers(), [withoutNumber]);
    assert.equal(reloaded.load()?.phase, 'created', 'the attempt is kept apart');
    // Forgetting the attempt (a new one in the same checkout) keeps the others: they may still be paid.
    reloaded.forget();
    assert.deepEqual(new AttemptStore(storage, () => 'k').loadOthers(), [withoutNumber]);
    // None left forgets them.
    reloaded.saveOthers([]);
    assert.equal(storage.map.size, 0);
    for (const raw of [
      '{',
      '{}',
      JSON.stringify([{ ...earlier, phase: 'settled', state: { status: 'paid' }, paymentStatus: 'paid' }]),
      JSON.stringify([{ ...earlier, lookupToken: 7 }]),
      JSON.stringify([{ ...earlier, deadline: 'soon' }]),
    ]) {
      storage.map.set('k:others', raw);
      assert.deepEqual(reloaded.loadOthers(), [], raw);
    }
    assert.deepEqual(
      new AttemptStore(storage, () => undefined).loadOthers(),
      [],
      'persist="none" keeps none',
    );
  });

  it('reads what the previous release stored (version 2) in today’s shape: key, order, events fired, amount', () => {
    const storage = memoryStorage();
    const store = new AttemptStore(storage, () => 'k');
    // Exactly as version 2 wrote them: the amount a number, its currency apart, on the attempt and on each order paid again.
    storage.map.set(
      'k',
      '{"version":2,"idempotencyKey":"6f1c1c9e-2c6b-4f5e-9b1a-1f2e3d4c5b6a","startedAt":1700000000000,"amount":16500,"currency":"ghs","fired":["pay-submit","pay-created","pay-requires-action","pay-paid"],"phase":"settled","cart":123456789,"items":["Rice 5 kg × 2"],"orderId":"or_abc","lookupToken":"token","deadline":1700000360000,"reference":"cart-8812","issuer":"mtn","paymentStatus":"paid","masked":"024 ••• 4567","settledAt":1700000100000,"state":{"status":"paid"},"alsoPaid":[{"orderId":"or_again","amount":4500,"currency":"ghs","masked":"020 ••• 1234"},{"orderId":"or_unpriced","currency":"ghs","masked":"020 ••• 5678"}]}',
    );
    storage.map.set(
      'k:others',
      '[{"version":2,"idempotencyKey":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","startedAt":1700000000000,"currency":"ghs","fired":["pay-submit","pay-created","pay-requires-action"],"phase":"created","issuer":"telecel","localNumber":"0201234567","orderId":"or_open","lookupToken":"token-open","deadline":1700000360000,"reference":null,"state":{"status":"requires_action"}}]',
    );
    const settled = store.load();
    assert.deepEqual(JSON.parse(JSON.stringify(settled)), {
      version: 3,
      idempotencyKey: '6f1c1c9e-2c6b-4f5e-9b1a-1f2e3d4c5b6a',
      startedAt: 1_700_000_000_000,
      amount: { currency: 'ghs', value: 16_500 },
      // Version 2's currency stays beside the amount, unread.
      currency: 'ghs',
      fired: ['pay-submit', 'pay-created', 'pay-requires-action', 'pay-paid'],
      phase: 'settled',
      cart: 123_456_789,
      items: ['Rice 5 kg × 2'],
      orderId: 'or_abc',
      lookupToken: 'token',
      deadline: 1_700_000_360_000,
      reference: 'cart-8812',
      issuer: 'mtn',
      paymentStatus: 'paid',
      masked: '024 ••• 4567',
      settledAt: 1_700_000_100_000,
      state: { status: 'paid' },
      alsoPaid: [
        {
          orderId: 'or_again',
          amount: { currency: 'ghs', value: 4_500 },
          currency: 'ghs',
          masked: '020 ••• 1234',
        },
        { orderId: 'or_unpriced', currency: 'ghs', masked: '020 ••• 5678' },
      ],
    });
    assert.ok(
      settled?.fired.includes('pay-paid'),
      'an event it fired before the release does not fire again',
    );
    const [open, ...more] = store.loadOthers();
    assert.deepEqual(more, []);
    assert.equal(open?.version, 3);
    assert.equal(open?.orderId, 'or_open');
    assert.equal(open?.localNumber, '0201234567', 'the same number again still takes it up');
    assert.equal(open?.amount, undefined, 'no amount: the page gave none, and no answer had one');
    // Saved again, it is today’s shape that storage holds.
    if (settled) store.save(settled);
    assert.equal(JSON.parse(storage.map.get('k') ?? '{}').version, 3);
    // The amount as version 2 read it: in the element's currency when none was kept, none unless a whole number.
    const { amount: _today, ...unpriced } = attempt;
    const created = (fields: Record<string, unknown>) =>
      JSON.stringify({ ...unpriced, version: 2, ...fields });
    for (const [fields, amount] of [
      [{ amount: 5000 }, { currency: 'ghs', value: 5000 }],
      [
        { amount: 5000, currency: 'usd' },
        { currency: 'usd', value: 5000 },
      ],
      [{ amount: 12.5, currency: 'ghs' }, undefined],
    ] as const) {
      storage.map.set('k', created(fields));
      assert.deepEqual(store.load()?.amount, amount, JSON.stringify(fields));
    }
    // Version 2's own checks still hold: a bad key is nothing, whatever the version.
    storage.map.set('k', created({ idempotencyKey: 'short' }));
    assert.equal(store.load(), undefined);
  });

  it('keeps two checkouts apart by create URL and element id', () => {
    assert.notEqual(attemptStorageKey('/a/orders', ''), attemptStorageKey('/b/orders', ''));
    assert.notEqual(attemptStorageKey('/a/orders', 'one'), attemptStorageKey('/a/orders', 'two'));
  });

  it('reads what it cannot trust as nothing: bad JSON, other versions, bad keys, bad states', () => {
    const storage = memoryStorage();
    const store = new AttemptStore(storage, () => 'k');
    for (const raw of [
      '{',
      'null',
      '[]',
      JSON.stringify({ ...attempt, version: 1 }),
      JSON.stringify({ ...attempt, idempotencyKey: 'short' }),
      JSON.stringify({ ...attempt, state: 'requires_action' }),
      JSON.stringify({ ...attempt, state: { status: 'done' } }),
      JSON.stringify({ ...attempt, phase: 'done' }),
      JSON.stringify({ ...attempt, phase: 'toString' }),
      // A state its phase cannot be in, or an error of the other phase's cause.
      JSON.stringify({ ...attempt, state: { status: 'paid' } }),
      JSON.stringify({ ...attempt, state: { status: 'error', cause: 'create', retryable: true } }),
      JSON.stringify({ ...attempt, phase: 'draft', state: { status: 'submitting' } }),
      JSON.stringify({ ...attempt, lookupToken: undefined }),
      JSON.stringify({ ...attempt, deadline: 'soon' }),
      JSON.stringify({ ...attempt, fired: 'pay-paid' }),
      JSON.stringify({ ...attempt, orderId: 42 }),
      JSON.stringify({ ...attempt, issuer: 'vodafone' }),
    ]) {
      storage.map.set('k', raw);
      assert.equal(store.load(), undefined, raw);
    }
    for (const valid of phases) assert.equal(isStoredAttempt(valid), true, valid.phase);
  });

  it('degrades to no persistence when storage throws (private modes, sandboxed frames, quota)', () => {
    const throwing: AttemptStorage = {
      getItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
      removeItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    };
    const store = new AttemptStore(throwing, () => 'k');
    assert.doesNotThrow(() => store.save(attempt));
    assert.equal(new AttemptStore(throwing, () => 'k').load(), undefined);
    assert.doesNotThrow(() => store.forget());
    assert.equal(new AttemptStore(undefined, () => 'k').load(), undefined);
  });

  it('makes idempotency keys the relay accepts, different every time, with or without randomUUID', () => {
    const keys = new Set(Array.from({ length: 100 }, newIdempotencyKey));
    assert.equal(keys.size, 100);
    for (const key of keys) assert.ok(isValidIdempotencyKey(key), key);
    const randomUUID = crypto.randomUUID;
    try {
      // Plain-HTTP pages have no randomUUID (it needs a secure context).
      Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
      const fallback = newIdempotencyKey();
      assert.ok(isValidIdempotencyKey(fallback), fallback);
      assert.match(fallback, /^[0-9a-f]{32}$/);
      assert.notEqual(fallback, newIdempotencyKey());
    } finally {
      Object.defineProperty(crypto, 'randomUUID', { value: randomUUID, configurable: true });
    }
  });
});
