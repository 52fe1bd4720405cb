/**
 * The sandbox's own control surface, and its handler called
 * on its own (no module of node: in its graph, for edge runtimes). Every call goes to `sandbox.handle` with a real `Request`, in
 * process (test/fixtures/sandbox.ts); sandbox-node-adapter.test.ts covers the
 * Node listener over real HTTP. Idempotency and memory bounds have their own
 * file, sandbox-idempotency.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { createSandbox, SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import { IDEMPOTENCY_KEY_HEADER } from '../../../src/shared/service-contract.js';
import {
  assertError,
  call,
  orderInput,
  START,
  sandboxWithClock,
  sharedSandbox,
} from '../../fixtures/sandbox.js';

describe('the control surface', () => {
  it('approve: 200 { order } with status fields only; then lookup shows paid; a second approve is 409', async () => {
    const { url, clock } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    clock.now += 2000;
    const approved = await call(url, '/_sandbox/payments/approve', { order_id: order.id }, { key: null });
    assert.equal(approved.status, 200);
    assert.deepEqual(approved.body, {
      order: {
        id: order.id,
        status: 'completed',
        completed_at: new Date(START + 2000).toISOString(),
        payment: { status: 'paid' },
      },
    });
    assert.equal((await call(url, '/orders/lookup', { order_id: order.id })).body.order.status, 'completed');
    assertError(
      await call(url, '/_sandbox/payments/approve', { order_id: order.id }, { key: null }),
      409,
      'payment_not_pending',
      'invalid_request_error',
    );
    assertError(
      await call(url, '/_sandbox/payments/decline', { order_id: order.id }, { key: null }),
      409,
      'payment_not_pending',
      'invalid_request_error',
    );
  });

  it('decline: failed with the reason given (default declined); a bad reason is 400', async () => {
    const { url } = await sandboxWithClock();
    const first = (await call(url, '/orders/new', orderInput())).body.order;
    const second = (await call(url, '/orders/new', orderInput())).body.order;
    const declined = await call(url, '/_sandbox/payments/decline', { order_id: first.id }, { key: null });
    assert.deepEqual(declined.body, {
      order: { id: first.id, status: 'requires_payment', payment: { status: 'failed' } },
    });
    assertError(
      await call(url, '/_sandbox/payments/decline', { order_id: second.id, reason: 'fraud' }, { key: null }),
      400,
      'invalid_request',
      'invalid_request_error',
      'reason',
    );
    await call(
      url,
      '/_sandbox/payments/decline',
      { order_id: second.id, reason: 'insufficient_funds' },
      { key: null },
    );
    const looked = (await call(url, '/orders/lookup', { order_id: second.id })).body.order;
    assert.equal(looked.payment.failure_code, 'insufficient_funds');
    assert.equal(
      (await call(url, '/orders/lookup', { order_id: first.id })).body.order.payment.failure_code,
      'declined',
    );
  });

  it('unknown orders are 404, malformed ids 400, non-JSON 415', async () => {
    const { url } = await sharedSandbox();
    for (const action of ['approve', 'decline', 'prompt']) {
      const path = `/_sandbox/payments/${action}`;
      assertError(
        await call(url, path, { order_id: 'or_000000000000000000000000' }, { key: null }),
        404,
        'resource_not_found',
        'invalid_request_error',
      );
      assertError(
        await call(url, path, { order_id: 'x' }, { key: null }),
        400,
        'invalid_request',
        'invalid_request_error',
        'order_id',
      );
      assertError(
        await call(url, path, undefined, { key: null, contentType: 'text/plain', rawBody: 'x' }),
        415,
        'unsupported_media_type',
        'invalid_request_error',
      );
    }
  });

  it('prompt: what the payer sees, with the number masked and no customer name', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    const prompt = await call(url, '/_sandbox/payments/prompt', { order_id: order.id }, { key: null });
    assert.deepEqual(prompt.body, {
      prompt: {
        order_id: order.id,
        status: 'requires_action',
        amount: { currency: 'ghs', value: 19_500 },
        issuer: 'mtn',
        number_masked: '024•••4567',
        merchant_name: 'Sandbox Shop',
      },
    });
    const text = JSON.stringify(prompt.body);
    assert.equal(text.includes('Ama'), false);
    assert.equal(text.includes('0241234567'), false);
    assert.equal(text.includes('241234567'), false);
    sandbox.approve(order.id);
    const after = await call(url, '/_sandbox/payments/prompt', { order_id: order.id }, { key: null });
    assert.equal(after.body.prompt.status, 'paid');
    const notStarted = (await call(url, '/orders/new', orderInput({ execute_payment: false }))).body.order;
    assertError(
      await call(url, '/_sandbox/payments/prompt', { order_id: notStarted.id }, { key: null }),
      404,
      'resource_not_found',
      'invalid_request_error',
    );
  });

  it('control answers never hold the customer name or full number', async () => {
    const { url } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    const approved = JSON.stringify(
      (await call(url, '/_sandbox/payments/approve', { order_id: order.id }, { key: null })).body,
    );
    assert.equal(approved.includes('Ama'), false);
    assert.equal(approved.includes('241234567'), false);
  });
});

describe('the handler on its own', () => {
  it('works when called directly with a Request, no port', async () => {
    const sandbox = createSandbox({ basePath: '/sandbox/' });
    const headers = { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' };
    const created = await sandbox.handle(
      new Request('https://shop.example/sandbox/orders/new?x=1', {
        method: 'POST',
        headers: { ...headers, [IDEMPOTENCY_KEY_HEADER]: 'direct-call-key-0001' },
        body: JSON.stringify(orderInput()),
      }),
    );
    assert.equal(created.status, 200);
    const { order } = (await created.json()) as { order: { id: string } };
    const { handle } = sandbox;
    const looked = await handle(
      new Request('https://shop.example/sandbox/orders/lookup', {
        method: 'POST',
        headers,
        body: JSON.stringify({ order_id: order.id }),
      }),
    );
    assert.equal(looked.status, 200);
    assert.equal(((await looked.json()) as { order: { id: string } }).order.id, order.id);
    assert.equal(sandbox.orderCount, 1);
  });

  it("keeps node: modules out of the handler's module graph (edge runtimes)", async () => {
    const seen = new Set<string>();
    const nodeImports: string[] = [];
    const visit = async (file: URL) => {
      if (seen.has(file.href)) return;
      seen.add(file.href);
      const source = await readFile(file, 'utf8');
      // Static value imports and re-exports; `import type` and dynamic `import()` load nothing up front.
      const specifiers = [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map(
        (match) => match[1] as string,
      );
      for (const specifier of specifiers) {
        if (specifier.startsWith('node:')) nodeImports.push(`${file.pathname} -> ${specifier}`);
        else if (specifier.startsWith('.')) await visit(new URL(specifier.replace(/\.js$/, '.ts'), file));
      }
    };
    await visit(new URL('../../../src/sandbox/index.ts', import.meta.url));
    assert.ok(seen.size > 5, 'the graph was walked');
    assert.deepEqual(nodeImports, []);
  });
});
