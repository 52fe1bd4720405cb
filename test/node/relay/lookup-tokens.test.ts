/**
 * The merchant relay answers lookups only with a token made for the order, and status fields only. Its handlers are called with real `Request`s in
 * front of an in-process sandbox (test/fixtures/relay.ts); a real proxy
 * where the wire must break, the Node listener over real HTTP where the
 * socket is the point.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createLookupTokens } from '../../../src/server/index.js';
import { createAnswerSchema } from '../../../src/shared/wire.js';
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
  const { events, relayWith } = relayStack();

  describe('lookup tokens', () => {
    let relay: ReturnType<typeof relayWith>;
    let order: { id: string };
    let token: string;
    let other: { order: { id: string }; lookup_token: string };
    let lookupCalls: number;

    before(async () => {
      lookupCalls = 0;
      relay = relayWith({
        fetch: (input, init) => {
          if (String(input).endsWith('/orders/lookup')) lookupCalls++;
          return sandboxFetch(input, init);
        },
      });
      const answer = createAnswerSchema.parse(
        await (await relay.create(createRequest(intent()), CLIENT)).json(),
      );
      order = answer.order;
      token = answer.lookup_token;
      other = createAnswerSchema.parse(await (await relay.create(createRequest(intent()), CLIENT)).json());
    });

    it('is the HMAC-SHA-256 of the order id under the lookup secret', () => {
      assert.equal(token, createHmac('sha256', LOOKUP_SECRET).update(order.id).digest('base64url'));
    });

    it('forged, missing, empty or another order’s token: 403, and the service is not asked', async () => {
      events.length = 0;
      const before = lookupCalls;
      const forged = createHmac('sha256', 'guess').update(order.id).digest('base64url');
      const bodies = [
        { order_id: order.id, lookup_token: forged },
        { order_id: order.id },
        { order_id: order.id, lookup_token: '' },
        { order_id: order.id, lookup_token: 'not base64url!' },
        { order_id: order.id, lookup_token: other.lookup_token },
        { order_id: other.order.id, lookup_token: token },
        { order_id: order.id, lookup_token: `${token}A` },
      ];
      for (const body of bodies) {
        const response = await relay.lookup(lookupRequest(body), CLIENT);
        assert.equal(response.status, 403, JSON.stringify(body));
        const error = await errorOf(response);
        assert.equal(error.code, 'permission_denied');
      }
      assert.equal(lookupCalls, before, 'the token is checked before the service is called');
      assert.equal(events.filter((event) => event.type === 'lookup_denied').length, bodies.length);
    });

    it('still checks tokens correctly once remembered HMACs are evicted', async () => {
      const tokens = createLookupTokens(LOOKUP_SECRET, { maxRememberedOrders: 1 });
      assert.equal(await tokens.verify(order.id, token), true);
      assert.equal(await tokens.verify(other.order.id, other.lookup_token), true);
      assert.equal(await tokens.verify(order.id, token), true);
      assert.equal(await tokens.verify(order.id, other.lookup_token), false);
      assert.equal(await tokens.sign(other.order.id), other.lookup_token);
    });

    it('a malformed order id is 400 with param order_id', async () => {
      const response = await relay.lookup(
        lookupRequest({ order_id: 'order-1', lookup_token: token }),
        CLIENT,
      );
      assert.equal(response.status, 400);
      assert.equal((await errorOf(response)).param, 'order_id');
    });

    it('a valid token for an order the service does not hold is 404', async () => {
      const missingId = 'or_doesnotexist';
      const validToken = await createLookupTokens(LOOKUP_SECRET).sign(missingId);
      const response = await relay.lookup(
        lookupRequest({ order_id: missingId, lookup_token: validToken }),
        CLIENT,
      );
      assert.equal(response.status, 404);
      assert.equal((await errorOf(response)).code, 'resource_not_found');
    });

    it('without a lookupSecret, a random one is used and the merchant is warned', async () => {
      events.length = 0;
      const random = relayWith({ lookupSecret: undefined });
      assert.ok(events.some((event) => event.type === 'warning' && event.code === 'lookup_secret_generated'));
      const answer = createAnswerSchema.parse(
        await (await random.create(createRequest(intent()), CLIENT)).json(),
      );
      assert.notEqual(
        answer.lookup_token,
        createHmac('sha256', LOOKUP_SECRET).update(answer.order.id).digest('base64url'),
      );
      const ok = await random.lookup(
        lookupRequest({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        CLIENT,
      );
      assert.equal(ok.status, 200);
      // Another relay (another random secret) cannot read it.
      const stranger = relayWith({ lookupSecret: undefined });
      const denied = await stranger.lookup(
        lookupRequest({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        CLIENT,
      );
      assert.equal(denied.status, 403);
    });
  });
});
