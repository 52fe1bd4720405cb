/**
 * Conformance of the sandbox to the service's authentication, errors and
 * limits. Every call goes to `sandbox.handle` with a real `Request`, in
 * process (test/fixtures/sandbox.ts); sandbox-node-adapter.test.ts covers the
 * Node listener over real HTTP. Idempotency and memory bounds have their own
 * file, sandbox-idempotency.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSandbox, SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import { PAGE_SIZE_MAX, SESSION_LIFETIME_MS } from '../../../src/shared/service-contract.js';
import {
  assertError,
  type CallOptions,
  call,
  ENDPOINTS,
  orderInput,
  START,
  sandboxWithClock,
  sharedSandbox,
} from '../../fixtures/sandbox.js';

describe("the service's authentication", () => {
  const unauthenticated: [string, CallOptions][] = [
    ['a missing Authorization header', { key: null }],
    ['a header not in Bearer form (lowercase bearer)', { authorization: `bearer ${SANDBOX_KEYS.secret}` }],
    ['a header with two spaces', { authorization: `Bearer  ${SANDBOX_KEYS.secret}` }],
    ['a header with no key', { authorization: 'Bearer' }],
    ['a Basic header', { authorization: `Basic ${btoa(`${SANDBOX_KEYS.secret}:`)}` }],
    ['a header with words after the key', { authorization: `Bearer ${SANDBOX_KEYS.secret} extra` }],
    ['the bare key with no scheme', { authorization: SANDBOX_KEYS.secret }],
    ['an invalid key', { key: 'sk_test_nobody' }],
    ['a key of the wrong mode (sk_live_)', { key: 'sk_live_sandbox' }],
    ['a key of the wrong mode (pk_live_)', { key: 'pk_live_sandbox' }],
  ];
  for (const [name, options] of unauthenticated) {
    it(`${name} is 401 authentication_failed on every endpoint`, async () => {
      const { url } = await sharedSandbox();
      for (const path of ENDPOINTS) {
        const answer = await call(url, path, { order_id: 'or_x' }, options);
        assertError(answer, 401, 'authentication_failed', 'authentication_error');
        assert.equal(answer.body.error.message.includes(SANDBOX_KEYS.secret), false, 'never echoes the key');
      }
    });
  }

  it('the key is checked before the body: 401 even for a body that is not JSON', async () => {
    const { url } = await sharedSandbox();
    const answer = await call(url, '/orders/new', undefined, {
      key: null,
      contentType: 'text/plain',
      rawBody: 'x',
    });
    assertError(answer, 401, 'authentication_failed', 'authentication_error');
  });

  it('a deleted key is 401 from then on', async () => {
    const { url, sandbox } = await sandboxWithClock();
    sandbox.keys.add({ key: 'sk_test_to_delete' });
    assert.equal(
      (await call(url, '/orders/page', { page_number: 1, page_size: 1 }, { key: 'sk_test_to_delete' }))
        .status,
      200,
    );
    assert.equal(sandbox.keys.revoke('sk_test_to_delete'), true);
    assert.equal(sandbox.keys.sessionFor('sk_test_to_delete'), undefined);
    const answer = await call(
      url,
      '/orders/page',
      { page_number: 1, page_size: 1 },
      { key: 'sk_test_to_delete' },
    );
    assertError(answer, 401, 'authentication_failed', 'authentication_error');
    assert.equal(answer.body.error.message.includes('sk_test_to_delete'), false);
  });

  it('an expired key is 401 once the clock reaches its expiry', async () => {
    const { url, sandbox, clock } = await sandboxWithClock();
    sandbox.keys.add({ key: 'sk_test_expiring', expiresAt: START + 1000 });
    const page = { page_number: 1, page_size: 1 };
    assert.equal((await call(url, '/orders/page', page, { key: 'sk_test_expiring' })).status, 200);
    clock.now = START + 1000;
    assertError(
      await call(url, '/orders/page', page, { key: 'sk_test_expiring' }),
      401,
      'authentication_failed',
      'authentication_error',
    );
  });

  it('the publishable key is 403 permission_denied on every endpoint (no server-side operation)', async () => {
    const { url } = await sharedSandbox();
    for (const path of ENDPOINTS) {
      const answer = await call(url, path, { order_id: 'or_x' }, { key: SANDBOX_KEYS.publishable });
      assertError(answer, 403, 'permission_denied', 'authorization_error');
    }
  });

  it('the read-only key is 403 on writes and allowed on every lookup and page', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const readOnly = { key: SANDBOX_KEYS.readOnly };
    assertError(
      await call(url, '/orders/new', orderInput(), readOnly),
      403,
      'permission_denied',
      'authorization_error',
    );
    assert.equal(sandbox.createdOrderCount, 0);
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    sandbox.approve(order.id);
    const paid = (await call(url, '/orders/lookup', { order_id: order.id }, readOnly)).body.order;
    assert.equal(paid.payment.status, 'paid');
    assert.equal((await call(url, '/orders/page', { page_number: 1, page_size: 5 }, readOnly)).status, 200);
    assert.equal((await call(url, '/otp/lookup', { otp_id: paid.payment.otp_id }, readOnly)).status, 200);
    assert.equal(
      (await call(url, '/chimes/lookup', { chime_id: paid.payment.chime_id }, readOnly)).status,
      200,
    );
  });

  it('a key restricted to some permissions is 403 outside them', async () => {
    const { url, sandbox } = await sandboxWithClock();
    sandbox.keys.add({ key: 'sk_test_orders_only', permissions: ['orders:read'] });
    const restricted = { key: 'sk_test_orders_only' };
    assert.equal((await call(url, '/orders/page', { page_number: 1, page_size: 5 }, restricted)).status, 200);
    const otp = await call(url, '/otp/lookup', { otp_id: 'otp_abc' }, restricted);
    assertError(otp, 403, 'permission_denied', 'authorization_error');
    assert.equal(otp.body.error.message.includes('otp:read'), true);
  });

  it('the sandbox refuses to hold live keys and malformed keys', () => {
    const sandbox = createSandbox();
    assert.throws(() => sandbox.keys.add({ key: 'sk_live_real' }), TypeError);
    assert.throws(() => sandbox.keys.add({ key: 'pk_live_real' }), TypeError);
    assert.throws(() => sandbox.keys.add({ key: 'secret' }), TypeError);
  });

  it('a multi-use session of about 60 minutes is created on first use, cached, then created anew', async () => {
    const { url, sandbox, clock } = await sandboxWithClock();
    const page = { page_number: 1, page_size: 1 };
    assert.equal(sandbox.keys.sessionFor(SANDBOX_KEYS.secret), undefined, 'no session before first use');
    await call(url, '/orders/page', page);
    const first = sandbox.keys.sessionFor(SANDBOX_KEYS.secret);
    assert.ok(first);
    assert.match(first.id, /^ses_[A-Za-z0-9]{24}$/);
    assert.deepEqual(first.application, {
      id: 'app_sandbox',
      name: 'Sandbox Shop',
      permissions: ['orders:write', 'orders:read', 'otp:read', 'chimes:read'],
    });
    assert.equal(first.expiresAt, START + SESSION_LIFETIME_MS);
    assert.equal(first.multiUse, true);
    clock.now += SESSION_LIFETIME_MS - 1;
    await call(url, '/orders/page', page);
    assert.equal(sandbox.keys.sessionFor(SANDBOX_KEYS.secret)?.id, first.id, 'cached while valid');
    clock.now += 1;
    assert.equal(sandbox.keys.sessionFor(SANDBOX_KEYS.secret), undefined, 'expired');
    await call(url, '/orders/page', page);
    const second = sandbox.keys.sessionFor(SANDBOX_KEYS.secret);
    assert.ok(second);
    assert.notEqual(second.id, first.id);
    assert.equal(second.expiresAt, clock.now + SESSION_LIFETIME_MS);
    await call(url, '/orders/page', page, { key: SANDBOX_KEYS.readOnly });
    const readOnlySession = sandbox.keys.sessionFor(SANDBOX_KEYS.readOnly);
    assert.ok(readOnlySession);
    assert.notEqual(readOnlySession.id, second.id, 'one session per key');
    assert.deepEqual(readOnlySession.application.permissions, ['orders:read', 'otp:read', 'chimes:read']);
  });
});

describe("the service's errors", () => {
  it('every error answer has error.code, error.message and error.type, as JSON with no-store', async () => {
    const { url } = await sharedSandbox();
    const answers = [
      await call(url, '/orders/new', orderInput(), { key: null }),
      await call(url, '/orders/new', orderInput(), { key: SANDBOX_KEYS.publishable }),
      await call(url, '/orders/new', { line_items: [] }),
      await call(url, '/orders/lookup', { order_id: 'or_unknown' }),
      await call(url, '/orders/lookup', {}, { method: 'GET' }),
      await call(url, '/orders/lookup', undefined, { contentType: 'text/plain', rawBody: 'x' }),
      await call(url, '/nowhere', {}),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [401, 403, 400, 404, 405, 415, 404],
    );
    for (const answer of answers) {
      assert.deepEqual(Object.keys(answer.body), ['error']);
      for (const field of ['code', 'message', 'type'])
        assert.equal(typeof answer.body.error[field], 'string');
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    }
  });

  it('a body over 64 KiB is 413 payload_too_large', async () => {
    const { url } = await sharedSandbox();
    const big = orderInput({ padding: 'x'.repeat(70 * 1024) });
    assertError(await call(url, '/orders/new', big), 413, 'payload_too_large', 'invalid_request_error');
    // Also when the handler is called directly, without the Node adapter's own limit.
    const direct = createSandbox();
    const response = await direct.handle(
      new Request('http://sandbox/orders/new', {
        method: 'POST',
        headers: { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(big),
      }),
    );
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'payload_too_large');
  });
});

describe("the service's limits", () => {
  it('page_size is at most 256 and the session lasts about 60 minutes', () => {
    assert.equal(PAGE_SIZE_MAX, 256);
    assert.equal(SESSION_LIFETIME_MS, 60 * 60 * 1000);
  });
});
