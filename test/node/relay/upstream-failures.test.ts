/**
 * The merchant relay answers the browser generically when the service fails or refuses the
 * relay, and tells the merchant everything. Its handlers are called with real `Request`s in
 * front of an in-process sandbox (test/fixtures/relay.ts); a real proxy
 * where the wire must break, the Node listener over real HTTP where the
 * socket is the point.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import { createLookupTokens } from '../../../src/server/index.js';
import { type FaultPlan, startFaultProxy } from '../../fixtures/fault-proxy.js';
import { errorAnswer } from '../../fixtures/hostile-answers.js';
import {
  CLIENT,
  createRequest,
  errorOf,
  intent,
  LOOKUP_SECRET,
  lookupRequest,
  relayStack,
} from '../../fixtures/relay.js';
import { sandboxFetch } from '../../fixtures/sandbox.js';

describe('createCheckoutRelay', () => {
  const { sandbox, sandboxUrl, events, relayWith, served } = relayStack();

  describe('when the service fails or refuses the relay', () => {
    it('a key the service rejects is 502 with nothing upstream leaked', async () => {
      const revoked = 'sk_test_revoked_merchant_key';
      sandbox.keys.add({ key: revoked });
      sandbox.keys.revoke(revoked);
      const direct = await sandboxFetch(`${sandboxUrl}/orders/new`, {
        method: 'POST',
        headers: { authorization: `Bearer ${revoked}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const upstreamMessage = (await errorOf(direct)).message;
      events.length = 0;
      const relay = relayWith({ secretKey: revoked });
      for (const response of [
        await relay.create(createRequest(intent()), CLIENT),
        await relay.lookup(
          lookupRequest({
            order_id: 'or_abc',
            lookup_token: await createLookupTokens(LOOKUP_SECRET).sign('or_abc'),
          }),
          CLIENT,
        ),
      ]) {
        assert.equal(response.status, 502);
        const text = await response.text();
        assert.ok(!text.includes(revoked), 'the key leaked');
        assert.ok(!text.includes(upstreamMessage), 'the upstream message leaked');
        assert.ok(!/authentication/i.test(text), 'the upstream code leaked');
        assert.equal(JSON.parse(text).error.code, 'service_unavailable');
      }
      const upstream = events.filter((event) => event.type === 'upstream_error');
      assert.equal(upstream.length, 2);
      const first = upstream[0];
      assert.ok(first && first.type === 'upstream_error');
      assert.equal(first.error.status, 401);
      assert.equal(first.error.message, upstreamMessage, 'the merchant gets the details');
    });

    it('a read-only key is 502 too', async () => {
      const relay = relayWith({ secretKey: SANDBOX_KEYS.readOnly });
      assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 502);
    });

    it('a service that is down or answers 5xx is 502; 409 and 400 on a shopper field keep their meaning', async () => {
      const plans: Record<string, FaultPlan> = {
        '500': errorAnswer(500, 'internal_error', 'api_error', 'stack at db.query line 7'),
        '409': errorAnswer(409, 'idempotency_request_in_progress', 'idempotency_error', 'upstream busy text'),
        '400-field': errorAnswer(
          400,
          'invalid_request',
          'invalid_request_error',
          'upstream says the name is odd',
          { param: 'customer_data.name' },
        ),
        '400-server': errorAnswer(400, 'invalid_request', 'invalid_request_error', 'upstream', {
          param: 'line_items',
        }),
      };
      const expected: Record<string, [number, string | undefined]> = {
        '500': [502, undefined],
        '409': [409, undefined],
        '400-field': [400, 'customer_data.name'],
        '400-server': [502, undefined],
      };
      for (const [name, plan] of Object.entries(plans)) {
        const proxy = await startFaultProxy(await served(), () => plan);
        try {
          const relay = relayWith({ baseUrl: proxy.url });
          const response = await relay.create(createRequest(intent()), CLIENT);
          const [status, param] = expected[name] as [number, string | undefined];
          assert.equal(response.status, status, name);
          const text = await response.text();
          assert.ok(!/upstream|stack|db\.query/.test(text), `${name} leaked upstream text: ${text}`);
          assert.equal(JSON.parse(text).error.param, param);
        } finally {
          await proxy.close();
        }
      }
      const down = relayWith({ baseUrl: 'http://127.0.0.1:9' });
      const response = await down.create(createRequest(intent()), CLIENT);
      assert.equal(response.status, 502);
    });

    it('a lookup a proxy answers with an HTML 404 is the service failing (502), not an unknown order', async () => {
      const html: FaultPlan = {
        kind: 'answer',
        status: 404,
        body: '<html><body>Not Found</body></html>',
        headers: { 'content-type': 'text/html' },
      };
      const notFound = errorAnswer(
        404,
        'resource_not_found',
        'invalid_request_error',
        'No order has this order_id.',
      );
      for (const [plan, status] of [
        [html, 502],
        [notFound, 404],
      ] as const) {
        const proxy = await startFaultProxy(await served(), () => plan);
        try {
          const relay = relayWith({ baseUrl: proxy.url });
          const lookupToken = await createLookupTokens(LOOKUP_SECRET).sign('or_abc');
          const response = await relay.lookup(
            lookupRequest({ order_id: 'or_abc', lookup_token: lookupToken }),
            CLIENT,
          );
          assert.equal(response.status, status);
        } finally {
          await proxy.close();
        }
      }
    });

    it('an onEvent that throws does not break a checkout', async () => {
      const relay = relayWith({
        onEvent: () => {
          throw new Error('logger down');
        },
      });
      assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 200);
    });
  });
});
