/**
 * The merchant relay answers CORS preflights for the allowed origins only, refuses bad options
 * at startup, and runs on edge runtimes. Its handlers are called with real `Request`s in
 * front of an in-process sandbox (test/fixtures/relay.ts); a real proxy
 * where the wire must break, the Node listener over real HTTP where the
 * socket is the point.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type CheckoutRelayOptions, createCheckoutRelay } from '../../../src/server/index.js';
import { CLIENT, createRequest, intent, relayStack, testRelayOptions } from '../../fixtures/relay.js';

describe('createCheckoutRelay', () => {
  const { relayWith } = relayStack();

  describe('CORS', () => {
    const origin = 'https://shop.example';
    const preflight = (from: string) =>
      new Request('https://pay.example/api/checkout/orders', {
        method: 'OPTIONS',
        headers: {
          origin: from,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, idempotency-key',
        },
      });

    it('answers preflights of allowed origins with POST, Content-Type and Idempotency-Key', async () => {
      const relay = relayWith({ allowedOrigins: [origin] });
      const response = await relay.handle(preflight(origin), CLIENT);
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), origin);
      assert.equal(response.headers.get('access-control-allow-methods'), 'POST');
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /Content-Type/);
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
      assert.match(response.headers.get('vary') ?? '', /Origin/);
      const created = await relay.create(createRequest(intent(), { headers: { origin } }), CLIENT);
      assert.equal(created.status, 200);
      assert.equal(created.headers.get('access-control-allow-origin'), origin);
      const limited = await relay.create(createRequest(intent(), { key: null, headers: { origin } }), CLIENT);
      assert.equal(limited.headers.get('access-control-allow-origin'), origin, 'errors are readable too');
    });

    it('answers preflights with the security headers every answer carries', async () => {
      const relay = relayWith({ allowedOrigins: [origin] });
      for (const from of [origin, 'https://evil.example']) {
        const response = await relay.handle(preflight(from), CLIENT);
        assert.equal(response.headers.get('cache-control'), 'no-store', from);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', from);
      }
    });

    it('blocks other origins, and every origin by default', async () => {
      for (const relay of [relayWith({ allowedOrigins: [origin] }), relayWith()]) {
        const response = await relay.handle(preflight('https://evil.example'), CLIENT);
        assert.equal(response.status, 403);
        assert.equal(response.headers.get('access-control-allow-origin'), null);
        const created = await relay.create(
          createRequest(intent(), { headers: { origin: 'https://evil.example' } }),
          CLIENT,
        );
        assert.equal(created.headers.get('access-control-allow-origin'), null);
      }
      const byDefault = await relayWith().handle(preflight(origin), CLIENT);
      assert.equal(byDefault.status, 403);
      assert.equal(byDefault.headers.get('access-control-allow-origin'), null);
    });
  });

  describe('startup errors', () => {
    // The option checking is the point: createCheckoutRelay itself, given the test relay's options.
    const base = () => testRelayOptions({ baseUrl: 'http://127.0.0.1:1' });

    it('refuses a missing, publishable or non-secret key without quoting it', () => {
      const cases: [unknown, RegExp][] = [
        [undefined, /secretKey is required/],
        ['', /secretKey is required/],
        ['pk_test_sandbox', /publishable key/],
        ['pk_live_0123456789', /publishable key/],
        ['rk_live_0123456789', /not a secret key/],
        ['my-password', /not a secret key/],
      ];
      for (const [secretKey, message] of cases) {
        assert.throws(
          () => createCheckoutRelay({ ...base(), secretKey } as CheckoutRelayOptions),
          (error: unknown) => {
            assert.ok(error instanceof TypeError);
            assert.match(error.message, message);
            assert.match(error.message, /^createCheckoutRelay:/);
            if (typeof secretKey === 'string' && secretKey) assert.ok(!error.message.includes(secretKey));
            return true;
          },
        );
      }
    });

    it('refuses a missing priceCart or baseUrl, a short lookupSecret and a bad origin', () => {
      assert.throws(
        () => createCheckoutRelay({ ...base(), priceCart: undefined } as never),
        /priceCart is required: the server decides what is charged/,
      );
      assert.throws(
        () => createCheckoutRelay({ ...base(), baseUrl: undefined } as never),
        /baseUrl is required/,
      );
      assert.throws(
        () => createCheckoutRelay({ ...base(), lookupSecret: 'short' }),
        /at least 16 characters/,
      );
      assert.throws(() => createCheckoutRelay({ ...base(), allowedOrigins: ['*'] }), /allowedOrigins/);
      assert.throws(
        () => createCheckoutRelay({ ...base(), allowedOrigins: ['https://shop.example/checkout'] }),
        /allowedOrigins/,
      );
      assert.throws(
        () => createCheckoutRelay({ ...base(), rateLimit: { create: { capacity: 0, refillPerMinute: 1 } } }),
        /rateLimit\.create/,
      );
    });
  });

  describe('runs on edge runtimes', () => {
    it('nothing under src/server imports a node: module at run time', () => {
      const folder = new URL('../../../src/server/', import.meta.url);
      for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
        const source = readFileSync(new URL(file, folder), 'utf8');
        const runtimeNodeImports = source.match(/^import (?!type )[^;]*from 'node:[^']+';/gm) ?? [];
        assert.deepEqual(runtimeNodeImports, [], file);
      }
    });
  });
});
