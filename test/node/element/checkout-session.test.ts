/**
 * CheckoutSession in Node, without a DOM: a scripted relay behind an injected
 * `fetch`, storage in a map and a clock the test moves. Each test reads as
 * one shopper's attempt; the event log is the element's events.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStoredAttempt } from '../../../src/element/checkout-attempt.js';
import { CheckoutSession } from '../../../src/element/checkout-session.js';
import { LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { memoryStorage } from '../../fixtures/memory-storage.js';
import {
  type Answer,
  CREATE_URL,
  checkout,
  environment,
  FakePage,
  failedAnswer,
  intent,
  LOOKUP_URL,
  ManualClock,
  ORDER_ID,
  order,
  relayError,
  reload,
  ScriptedRelay,
  STORAGE_KEY,
  settle,
  TOKEN,
} from '../../fixtures/session-harness.js';

describe('CheckoutSession', () => {
  it('creates once, waits for the payer, and ends paid: each event once, in order', async () => {
    const shop = checkout();
    await shop.submit();
    assert.equal(shop.session.state.status, 'requires_action');
    const waiting = shop.session.attempt;
    const firedWhileWaiting = structuredClone(waiting?.fired);
    assert.equal(shop.relay.creates.length, 1);
    assert.equal(shop.relay.lookups, 1, 'one lookup as soon as the order exists');
    assert.equal(shop.session.secondsLeft, 60);
    await shop.clock.advance(3_000);
    assert.equal(shop.relay.lookups, 2);
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.deepEqual(shop.fired, ['pay-submit', 'pay-created', 'pay-requires-action', 'pay-paid']);
    assert.deepEqual(
      waiting?.fired,
      firedWhileWaiting,
      'firing pay-paid left the attempt held before it as it was',
    );
    assert.deepEqual(shop.stored?.fired, ['pay-submit', 'pay-created', 'pay-requires-action', 'pay-paid']);
    assert.deepEqual(shop.states, ['submitting', 'requires_action', 'paid']);
    assert.equal(shop.clock.pending, 0, 'no timer left after paid');
    await shop.clock.advance(60_000);
    assert.equal(shop.relay.lookups, 3, 'no lookup after paid');
    assert.equal(shop.stored?.phase, 'settled');
    assert.deepEqual(shop.stored?.state, { status: 'paid' });
  });

  it('sends the very intent it was given, under one idempotency key, and keeps no name once the order exists', async () => {
    const shop = checkout();
    await shop.session.submit(() => intent);
    const [create] = shop.relay.creates;
    assert.deepEqual(JSON.parse(String(create?.body)), intent);
    assert.match(String(create?.idempotencyKey), /^[A-Za-z0-9_-]{16,255}$/);
    await settle();
    assert.equal(shop.stored?.phase, 'created');
    assert.equal(JSON.stringify(shop.stored).includes('Ama Mensah'), false, 'the body is gone');
  });

  it('keeps the shopper’s number in sessionStorage only while the payer decides, not after paid', async () => {
    const shop = checkout();
    await shop.submit();
    const national = LOCAL_NUMBER.slice(1);
    assert.equal(shop.stored?.phase, 'created');
    // What the "approve on your phone" screen says after a reload: where the prompt went.
    assert.equal(
      shop.stored?.phase === 'created' && shop.stored.localNumber,
      LOCAL_NUMBER,
      'stored while waiting',
    );
    const screen = shop.session.attempt;
    assert.equal(screen?.phase === 'created' && screen.localNumber, LOCAL_NUMBER, 'the screen shows it');
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.stored?.phase, 'settled');
    assert.equal(JSON.stringify(shop.stored).includes(national), false, 'no number stored after paid');
    assert.equal(Object.hasOwn(shop.stored ?? {}, 'localNumber'), false);
  });

  it('takes no order id but of the or_… form from a create answer: nothing kept, nothing polled', async () => {
    const relay = new ScriptedRelay();
    const hostile = { order: { ...order('requires_action'), id: '../../admin?x=1' }, lookup_token: TOKEN };
    relay.createAnswers = [{ status: 200, body: hostile }];
    const shop = checkout({ relay });
    await shop.submit();
    assert.equal(shop.session.state.status, 'error');
    assert.equal(shop.fired.includes('pay-created'), false);
    assert.equal(shop.relay.lookups, 0);
    assert.equal(JSON.stringify(shop.stored).includes('admin'), false);
  });

  it('shows the prompt limit on the number field: approve the prompt sent, or wait', async () => {
    const relay = new ScriptedRelay();
    relay.createAnswers = [
      {
        ...relayError(429, 'too_many_payment_requests', 'payment_method_data.mobile_money.number'),
        headers: { 'Retry-After': '540' },
      },
    ];
    const shop = checkout({ relay });
    await shop.submit();
    assert.equal(shop.session.state.status, 'idle', 'back to the form: the shopper may change the number');
    assert.deepEqual(shop.refused, ['number']);
    assert.deepEqual(shop.refusals, [{ error: 'numberTooManyPrompts', waitMinutes: 9 }]);
    assert.equal(shop.relay.creates.length, 1, 'no automatic retry into the limit');
    assert.equal(shop.stored, undefined, 'nothing was created');
  });

  it('ends failed on a declined payment, with its reason, and stops polling', async () => {
    const shop = checkout();
    await shop.submit();
    shop.relay.lookupAnswer = failedAnswer('declined');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'failed');
    assert.deepEqual(shop.events.find((event) => event.name === 'pay-failed')?.detail, {
      orderId: ORDER_ID,
      paymentStatus: 'failed',
      failureCode: 'declined',
    });
    assert.equal(shop.clock.pending, 0);
    assert.equal(
      shop.stored?.phase === 'settled' && shop.stored.failureCode,
      'declined',
      'a reload shows it too',
    );
  });

  it('keeps only a failure reason it has words for: any other reads as none', async () => {
    for (const [sent, kept] of [
      ['insufficient_funds', 'insufficient_funds'],
      ['suspected_fraud', undefined],
      [42, undefined],
      [undefined, undefined],
    ] as const) {
      const shop = checkout();
      await shop.submit();
      shop.relay.lookupAnswer = failedAnswer(sent);
      await shop.clock.advance(3_000);
      const detail = shop.events.find((event) => event.name === 'pay-failed')?.detail;
      assert.equal((detail as { failureCode?: string }).failureCode, kept, String(sent));
      const settled = shop.session.attempt;
      assert.equal(settled?.phase === 'settled' && settled.failureCode, kept);
    }
  });

  describe('when the relay refuses the cart (CartError: 400 with param cart…)', () => {
    const soldOut: Answer = {
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message: 'The blue tote is sold out.',
          type: 'invalid_request_error',
          param: 'cart.items[0].sku',
        },
      },
    };

    it('shows the merchant’s message, and "Try again" sends the page’s new cart under a new key', async () => {
      const relay = new ScriptedRelay();
      relay.createAnswers = [soldOut];
      const shop = checkout({ relay });
      await shop.session.submit(() => ({ ...intent, cart: { items: [{ sku: 'blue-tote' }] } }));
      await settle();
      assert.deepEqual(shop.session.state, {
        status: 'error',
        cause: 'cart',
        retryable: false,
        message: 'The blue tote is sold out.',
      });
      assert.deepEqual(shop.events.find((event) => event.name === 'pay-error')?.detail, {
        code: 'cart_rejected',
        message: 'The blue tote is sold out.',
        retryable: false,
      });
      assert.equal(shop.stored, undefined, 'nothing exists under the refused key: it is dropped');
      // The page fixes its cart; the shopper presses "Try again".
      await shop.session.submit(() => ({ ...intent, cart: { items: [{ sku: 'green-tote' }] } }));
      await settle();
      assert.equal(shop.session.state.status, 'requires_action');
      const [refused, fixed] = relay.creates;
      assert.notEqual(fixed?.idempotencyKey, refused?.idempotencyKey);
      assert.deepEqual(JSON.parse(String(fixed?.body)).cart, { items: [{ sku: 'green-tote' }] });
      assert.deepEqual(shop.states, ['submitting', 'error', 'submitting', 'requires_action']);
      assert.equal(shop.fired.filter((name) => name === 'pay-submit').length, 2, 'a new attempt, announced');
    });

    it('keeps the key and the request when an earlier try may have reached the service: "Try again" resends them', async () => {
      const relay = new ScriptedRelay();
      relay.createAnswers = [relayError(503, 'service_unavailable'), soldOut];
      const shop = checkout({ relay });
      await shop.submit();
      await shop.submit(); // "Try again" after the 503: the same request, now refused for its cart.
      assert.deepEqual(shop.session.state, {
        status: 'error',
        cause: 'cart',
        retryable: true,
        message: 'The blue tote is sold out.',
      });
      // pay-error fires once per attempt: this attempt's was the 503's.
      const errors = shop.events.filter((event) => event.name === 'pay-error').map((event) => event.detail);
      assert.deepEqual(errors, [
        { code: 'service_unavailable', message: 'The relay says service_unavailable.', retryable: true },
      ]);
      assert.equal(shop.stored?.phase, 'draft', 'the key is kept: an order may exist under it');
      // A reload shows the same screen, with the same key in hand.
      const reloaded = reload(shop);
      assert.deepEqual(reloaded.session.state, shop.session.state);
      await reloaded.session.submit(() => ({ ...intent, cart: { items: [{ sku: 'other' }] } }));
      await settle();
      assert.equal(reloaded.session.state.status, 'requires_action');
      const keys = new Set(relay.creates.map((create) => create.idempotencyKey));
      const bodies = new Set(relay.creates.map((create) => create.body));
      assert.equal(keys.size, 1, 'one key for every try');
      assert.equal(bodies.size, 1, 'the very same request: the page’s new cart waits for a new attempt');
    });
  });

  it('times out without failing, and "Check again" polls the same order: never a new create', async () => {
    const shop = checkout();
    await shop.submit();
    await shop.clock.advance(60_000);
    assert.equal(shop.session.state.status, 'timeout');
    assert.equal(shop.session.secondsLeft, 0);
    assert.deepEqual(shop.fired.slice(-1), ['pay-timeout']);
    // The timeout screen keeps looking the order up by itself, with no countdown.
    assert.equal(shop.clock.pending, 1, 'the next lookup only');
    shop.session.checkAgain();
    assert.equal(shop.session.state.status, 'requires_action');
    assert.equal(shop.session.secondsLeft, 60, 'another poll-timeout');
    await settle();
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(shop.relay.creates.length, 1);
    assert.equal(shop.fired.filter((name) => name === 'pay-requires-action').length, 1);
    assert.equal(shop.fired.filter((name) => name === 'pay-timeout').length, 1);
  });

  it('retries a retryable create error with the same idempotency key: one order', async () => {
    const relay = new ScriptedRelay();
    relay.createAnswers = [relayError(503, 'service_unavailable')];
    const shop = checkout({ relay });
    await shop.submit();
    assert.deepEqual(shop.session.state, { status: 'error', cause: 'create', retryable: true });
    assert.deepEqual(shop.events.find((event) => event.name === 'pay-error')?.detail, {
      code: 'service_unavailable',
      message: 'The relay says service_unavailable.',
      retryable: true,
    });
    // "Try again".
    await shop.submit();
    assert.equal(shop.session.state.status, 'requires_action');
    const [first, second] = relay.creates;
    assert.equal(relay.creates.length, 2);
    assert.equal(second?.idempotencyKey, first?.idempotencyKey);
    assert.equal(second?.body, first?.body);
    assert.equal(shop.fired.filter((name) => name === 'pay-submit').length, 1);
  });

  it('starts over with a new key after a create the relay refused for good', async () => {
    const relay = new ScriptedRelay();
    relay.createAnswers = [relayError(422, 'idempotency_key_reused')];
    const shop = checkout({ relay });
    await shop.submit();
    assert.deepEqual(shop.session.state, { status: 'error', cause: 'create', retryable: false });
    await shop.session.submit(() => intent);
    assert.equal(shop.session.state.status, 'idle', '"Try again" gives a fresh form');
    assert.equal(shop.stored, undefined);
    await shop.submit();
    assert.notEqual(relay.creates[1]?.idempotencyKey, relay.creates[0]?.idempotencyKey);
  });

  it('goes back to the form on a refused field (400 with param), forgetting the key', async () => {
    const relay = new ScriptedRelay();
    relay.createAnswers = [relayError(400, 'invalid_request', 'customer_data.name')];
    const shop = checkout({ relay });
    await shop.submit();
    assert.equal(shop.session.state.status, 'idle');
    assert.deepEqual(shop.refused, ['customer_name']);
    assert.equal(shop.stored, undefined);
    assert.equal(shop.fired.includes('pay-error'), false);
  });

  it('is a lookup error when the relay refuses the token (403): the order is kept and checked again', async () => {
    const relay = new ScriptedRelay();
    relay.lookupAnswer = relayError(403, 'permission_denied');
    const shop = checkout({ relay });
    await shop.submit();
    assert.deepEqual(shop.session.state, { status: 'error', cause: 'lookup', retryable: false });
    assert.deepEqual(shop.events.find((event) => event.name === 'pay-error')?.detail, {
      code: 'permission_denied',
      message: 'The relay says permission_denied.',
      retryable: false,
    });
    assert.equal(shop.stored?.phase, 'created');
    assert.equal(shop.clock.pending, 0);
    relay.lookupAnswer = 'paid';
    shop.session.checkAgain();
    await settle();
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(relay.creates.length, 1);
  });

  it('never takes a lookup that answers for another order as its own: it keeps asking', async () => {
    const relay = new ScriptedRelay();
    relay.lookupAnswer = { status: 200, body: { order: { ...order('paid'), id: 'or_someone_else' } } };
    const shop = checkout({ relay });
    await shop.submit();
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'requires_action');
    assert.equal(relay.lookups, 2, 'polling goes on');
    assert.equal(shop.fired.includes('pay-paid'), false);
    relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
  });

  it('backs off while lookups fail for a while (5xx), and carries on', async () => {
    const relay = new ScriptedRelay();
    const shop = checkout({ relay });
    await shop.submit();
    relay.lookupAnswer = relayError(503, 'service_unavailable');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.connection, 'trouble');
    assert.equal(shop.session.state.status, 'requires_action');
    relay.lookupAnswer = 'requires_action';
    await shop.clock.advance(6_000);
    assert.equal(shop.session.connection, 'ok');
  });

  it('refuses to work when misconfigured, says so once, and sends nothing', async () => {
    const shop = checkout({ settings: { lookupUrl: '' } });
    await shop.submit();
    assert.deepEqual(shop.session.state, { status: 'error', cause: 'config', retryable: false });
    await shop.submit();
    shop.session.resume({ orderId: ORDER_ID, lookupToken: TOKEN });
    assert.deepEqual(shop.fired, ['pay-error']);
    assert.equal(shop.relay.creates.length + shop.relay.lookups, 0);
    // A cart that is not JSON is refused the same way, once more for its own reason.
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const other = checkout();
    await other.session.submit(() => ({ ...intent, cart: cyclic }));
    assert.deepEqual(other.events.map((event) => (event.detail as { code?: string }).code).filter(Boolean), [
      'invalid_cart',
    ]);
    other.session.refuse('secret_key_exposed');
    other.session.refuse('secret_key_exposed');
    assert.equal(other.fired.filter((name) => name === 'pay-error').length, 2);
  });

  it('sends nothing when pay-submit is cancelled, and ignores submits while one is in flight', async () => {
    const shop = checkout();
    shop.cancelNextSubmit();
    await shop.submit();
    assert.equal(shop.session.state.status, 'idle');
    assert.equal(shop.relay.creates.length, 0);
    const fresh = checkout();
    const first = fresh.session.submit(() => intent);
    await fresh.session.submit(() => intent);
    assert.equal(fresh.session.restart(), false, 'no new attempt while a create is in flight');
    await first;
    await settle();
    assert.equal(fresh.relay.creates.length, 1);
  });

  it('resumes a draft after a reload: the same create, under the same key, without pay-submit', async () => {
    const relay = new ScriptedRelay();
    const shop = checkout({ relay });
    // The page reloads while the create is in flight: its answer never reaches the old page.
    const sending = shop.session.submit(() => intent);
    const reloaded = reload(shop);
    await sending;
    await settle();
    assert.equal(reloaded.session.state.status, 'requires_action');
    assert.equal(relay.creates.length, 2);
    assert.equal(relay.creates[1]?.idempotencyKey, relay.creates[0]?.idempotencyKey);
    assert.deepEqual(reloaded.fired, ['pay-created', 'pay-requires-action']);
  });

  it('shows a failed create again after a reload, and retries it under the same key', async () => {
    const relay = new ScriptedRelay();
    relay.createAnswers = [relayError(503, 'service_unavailable')];
    const shop = checkout({ relay });
    await shop.submit();
    const reloaded = reload(shop);
    assert.deepEqual(reloaded.session.state, { status: 'error', cause: 'create', retryable: true });
    assert.equal(reloaded.session.attempt?.phase, 'draft');
    assert.equal(relay.creates.length, 1, 'nothing sent until the shopper tries again');
    await reloaded.submit();
    assert.equal(relay.creates[1]?.idempotencyKey, relay.creates[0]?.idempotencyKey);
    assert.deepEqual(reloaded.fired, ['pay-created', 'pay-requires-action']);
  });

  it('polls a created order again after a reload, without firing its events twice', async () => {
    const shop = checkout();
    await shop.submit();
    const reloaded = reload(shop);
    assert.equal(reloaded.session.state.status, 'requires_action');
    await settle();
    assert.equal(shop.relay.lookups, 2, 'a lookup at once after the reload');
    shop.relay.lookupAnswer = 'paid';
    await reloaded.clock.advance(3_000);
    assert.equal(reloaded.session.state.status, 'paid');
    assert.deepEqual(reloaded.fired, ['pay-paid']);
  });

  it('carries on after a reload with an attempt the previous release stored (version 2): its order, its events, its amount', async () => {
    const storage = memoryStorage();
    // Exactly as version 2 wrote it: the amount the relay answered a number, its currency apart.
    storage.map.set(
      STORAGE_KEY,
      `{"version":2,"idempotencyKey":"f3b0c6a2-5d0e-4e55-9a1f-6c2d3b4a5e6f","startedAt":1700000000000,"amount":16500,"currency":"ghs","fired":["pay-submit","pay-created","pay-requires-action"],"phase":"created","issuer":"mtn","localNumber":"${LOCAL_NUMBER}","cart":474834983,"orderId":"${ORDER_ID}","lookupToken":"${TOKEN}","deadline":1700000060000,"reference":"cart-8812","state":{"status":"requires_action"}}`,
    );
    const shop = checkout({ storage });
    await settle();
    assert.equal(shop.session.state.status, 'requires_action');
    assert.equal(shop.session.attempt?.phase === 'created' && shop.session.attempt.orderId, ORDER_ID);
    assert.deepEqual(shop.session.attempt?.amount, { currency: 'ghs', value: 16_500 });
    assert.equal(shop.relay.lookups, 1, 'the same order looked up at once');
    assert.deepEqual(shop.fired, [], 'nothing it fired before the release fires again');
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(shop.relay.creates.length, 0, 'never a second order');
    assert.deepEqual(shop.details('pay-paid')[0]?.amount, { currency: 'ghs', value: 16_500 });
    assert.equal(shop.details('pay-paid')[0]?.reference, 'cart-8812');
    assert.deepEqual(shop.stored?.fired, ['pay-submit', 'pay-created', 'pay-requires-action', 'pay-paid']);
    assert.equal(shop.stored?.version, 3);
  });

  it('shows a settled attempt again after a reload, with no request and no event', async () => {
    const relay = new ScriptedRelay();
    relay.lookupAnswer = 'paid';
    const shop = checkout({ relay });
    await shop.submit();
    assert.equal(shop.session.state.status, 'paid');
    const requests = relay.creates.length + relay.lookups;
    const reloaded = reload(shop);
    await settle();
    assert.equal(reloaded.session.state.status, 'paid');
    assert.equal(reloaded.session.attempt?.phase, 'settled');
    assert.equal(relay.creates.length + relay.lookups, requests);
    assert.deepEqual(reloaded.events, []);
    assert.equal(reloaded.session.restart(), true);
    assert.equal(reloaded.stored, undefined, 'a new attempt forgets the old one');
  });

  it('forgets a create the relay refused for good on reload: a fresh form', () => {
    const storage = memoryStorage();
    const refusedDraft = {
      version: 3,
      phase: 'draft',
      idempotencyKey: 'f3b0c6a2-5d0e-4e55-9a1f-6c2d3b4a5e6f',
      startedAt: 1,
      fired: ['pay-submit', 'pay-error'],
      state: { status: 'error', cause: 'create', retryable: false },
      body: JSON.stringify(intent),
      issuer: 'mtn',
      localNumber: LOCAL_NUMBER,
    };
    storage.map.set(STORAGE_KEY, JSON.stringify(refusedDraft));
    const shop = checkout({ storage });
    assert.equal(shop.session.state.status, 'idle');
    assert.equal(storage.map.size, 0);
  });

  it('follows an order created elsewhere with resume(), and rejects a malformed one', async () => {
    const shop = checkout();
    assert.throws(() => shop.session.resume({ orderId: 'nope', lookupToken: TOKEN }), TypeError);
    shop.session.resume({ orderId: ORDER_ID, lookupToken: TOKEN });
    await settle();
    assert.equal(shop.session.state.status, 'requires_action');
    assert.deepEqual(shop.fired, ['pay-requires-action']);
    assert.equal(shop.relay.creates.length, 0);
    assert.equal(shop.relay.lookups, 1);
  });

  it('pauses polling while the page is hidden or offline, and looks at once when it is back', async () => {
    const shop = checkout();
    await shop.submit();
    shop.page.set({ hidden: true });
    await shop.clock.advance(30_000);
    assert.equal(shop.relay.lookups, 1);
    assert.equal(shop.clock.pending, 1, 'the countdown only');
    shop.page.set({ hidden: false });
    await settle();
    assert.equal(shop.relay.lookups, 2);
    shop.page.set({ online: false });
    assert.equal(shop.session.connection, 'offline');
    await shop.clock.advance(30_000);
    assert.equal(shop.relay.lookups, 2);
    shop.page.set({ online: true });
    await settle();
    // The look at once finds the poll-timeout passed offline; the timeout screen then looks again by itself.
    assert.equal(shop.relay.lookups, 4);
    assert.equal(shop.session.state.status, 'timeout');
  });

  it('stops everything when taken off the page, and carries on when put back', async () => {
    const shop = checkout();
    await shop.submit();
    shop.session.hostDisconnected();
    assert.equal(shop.clock.pending, 0);
    assert.equal(shop.page.listeners.size, 0);
    await shop.clock.advance(30_000);
    assert.equal(shop.relay.lookups, 1);
    shop.session.hostConnected();
    await settle();
    assert.equal(shop.relay.lookups, 2);
    assert.equal(shop.fired.filter((name) => name === 'pay-requires-action').length, 1);
  });

  it('keeps nothing without a storage key (persist="none")', async () => {
    const storage = memoryStorage();
    const relay = new ScriptedRelay();
    const settings = { createUrl: CREATE_URL };
    const shop = checkout({ storage, relay, settings });
    await shop.submit();
    assert.equal(shop.session.state.status, 'requires_action');
    const none = new CheckoutSession(
      {
        ...settings,
        lookupUrl: LOOKUP_URL,
        pollInterval: 3000,
        pollTimeout: 0,
        amount: undefined,
        currency: 'ghs',
      },
      {
        dispatch: () => true,
        stateChanged: () => undefined,
        requestUpdate: () => undefined,
        fieldRefused: () => undefined,
        storageKey: () => undefined,
      },
      environment({
        clock: new ManualClock(),
        page: new FakePage(),
        storage: memoryStorage(),
        fetch: relay.fetch,
      }),
    );
    await none.submit(() => intent);
    await settle();
    assert.equal(none.state.status, 'requires_action');
    assert.equal(none.secondsLeft, 360, 'poll-timeout 0 means the default');
    none.hostDisconnected();
    shop.session.hostDisconnected();
  });

  it('stores every attempt in a state of its own phase, at every write, whatever the flow', async () => {
    const storage = memoryStorage();
    const written: string[] = [];
    const recording = {
      ...storage,
      setItem: (key: string, value: string) => {
        written.push(value);
        storage.setItem(key, value);
      },
    };
    const relay = new ScriptedRelay();
    relay.createAnswers = [relayError(503, 'service_unavailable')];
    const shop = checkout({ relay, storage: recording });
    await shop.submit(); // A create that failed: the draft in error, under its key.
    await shop.submit(); // "Try again": created, waiting for the payer.
    await shop.clock.advance(60_000);
    assert.equal(shop.session.state.status, 'timeout');
    relay.lookupAnswer = relayError(403, 'permission_denied');
    shop.session.checkAgain();
    await settle();
    assert.deepEqual(shop.session.state, { status: 'error', cause: 'lookup', retryable: false });
    relay.lookupAnswer = 'paid';
    shop.session.checkAgain();
    await settle();
    assert.equal(shop.session.state.status, 'paid');
    shop.session.resume({ orderId: ORDER_ID, lookupToken: TOKEN });
    await settle();
    assert.ok(written.length >= 6, `${written.length} writes`);
    for (const value of written) assert.equal(isStoredAttempt(JSON.parse(value)), true, value);
    // The session's attempt is in the session's very state, not a copy of its own.
    assert.equal(shop.session.attempt?.state, shop.session.state);
    shop.session.hostDisconnected();
  });
});
