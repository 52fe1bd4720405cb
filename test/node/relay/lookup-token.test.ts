/**
 * The relay's HMACs (lookup tokens, idempotency scope): on Node they run on
 * `node:crypto`, on edge runtimes on WebCrypto, and both must give the same
 * bytes, or a token signed on one runtime would fail on the other.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { createLookupTokens } from '../../../src/server/index.js';
import { createHmacSha256, createWebCryptoHmacSha256 } from '../../../src/server/tokens/hmac.js';
import { createIdempotencyScope } from '../../../src/server/tokens/idempotency-scope.js';

const SECRET = 'test-lookup-secret-0123456789abcdef';

/** The same HMAC straight from node:crypto, as the reference. */
function referenceHmac(secret: string | Uint8Array, message: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', secret).update(message, 'utf8').digest());
}

describe('HMAC-SHA-256 of the relay', () => {
  const messages = [
    'or_y9Pu2dNPcSxj0jOR0pSQwXvn',
    '',
    'Ama Mensah — ₵ 50',
    '\u{1F600}',
    'lone \uD800 surrogate',
  ];

  it('is the same on node:crypto and on WebCrypto, for text and byte secrets', async () => {
    const byteSecret = new Uint8Array(Array.from({ length: 40 }, (_, index) => index * 7));
    for (const secret of [SECRET, byteSecret]) {
      const fast = createHmacSha256(secret);
      const web = createWebCryptoHmacSha256(secret);
      for (const message of messages) {
        const expected = referenceHmac(secret, message);
        assert.deepEqual(await fast(message), expected, `node:crypto, ${JSON.stringify(message)}`);
        assert.deepEqual(await web(message), expected, `WebCrypto, ${JSON.stringify(message)}`);
      }
    }
  });

  it('takes node:crypto from process.getBuiltinModule, and WebCrypto on a runtime without it', async () => {
    const original = process.getBuiltinModule;
    const asked: string[] = [];
    try {
      process.getBuiltinModule = ((id: string) => {
        asked.push(id);
        return original(id);
      }) as typeof original;
      assert.deepEqual(await createHmacSha256(SECRET)('or_a'), referenceHmac(SECRET, 'or_a'));
      assert.deepEqual(asked, ['node:crypto']);
      // As on an edge runtime: no getBuiltinModule, so no node:crypto.
      process.getBuiltinModule = undefined as unknown as typeof original;
      assert.deepEqual(await createHmacSha256(SECRET)('or_a'), referenceHmac(SECRET, 'or_a'));
      assert.deepEqual(asked, ['node:crypto']);
    } finally {
      process.getBuiltinModule = original;
    }
  });

  it('answers a fresh 32-byte array each time: a caller may keep it', async () => {
    const sign = createHmacSha256(SECRET);
    const first = await sign('or_a');
    const second = await sign('or_a');
    assert.equal(first.byteLength, 32);
    assert.equal(first.buffer.byteLength, 32, 'not a view of a larger pooled buffer');
    assert.notEqual(first, second);
    first.fill(0);
    assert.deepEqual(second, referenceHmac(SECRET, 'or_a'));
  });
});

describe('lookup tokens', () => {
  it('are base64url(HMAC(secret, order id)), and verify in either order of sign and verify', async () => {
    const orderId = 'or_y9Pu2dNPcSxj0jOR0pSQwXvn';
    const expected = Buffer.from(referenceHmac(SECRET, orderId)).toString('base64url');
    const tokens = createLookupTokens(SECRET);
    // Verified before it was ever signed: the HMAC is computed, not only remembered.
    assert.equal(await tokens.verify(orderId, expected), true);
    assert.equal(await tokens.sign(orderId), expected);
    assert.equal(await createLookupTokens(SECRET).sign(orderId), expected);
    assert.equal(await tokens.verify(orderId, `${expected.slice(0, -1)}A`), expected.endsWith('A'));
    assert.equal(await tokens.verify('or_other', expected), false);
    assert.equal(await createLookupTokens(`${SECRET}x`).verify(orderId, expected), false);
  });
});

describe('lookup tokens past the remembered bound', () => {
  it('sign and verify right through many batch evictions, of recent and old orders alike', async () => {
    const tokens = createLookupTokens(SECRET, { maxRememberedOrders: 150 });
    const ids = Array.from({ length: 1000 }, (_, index) => `or_${index.toString(36).padStart(4, '0')}`);
    const signed = new Map<string, string>();
    for (const id of ids) signed.set(id, await tokens.sign(id));
    for (const id of [...ids].reverse()) {
      const expected = Buffer.from(referenceHmac(SECRET, id)).toString('base64url');
      assert.equal(signed.get(id), expected, id);
      assert.equal(await tokens.verify(id, expected), true, id);
      assert.equal(await tokens.verify(id, signed.get('or_0000') ?? ''), id === 'or_0000', id);
    }
  });
});

describe('idempotency scope', () => {
  it('is base64url(HMAC(HMAC(secret key, label), "idempotency:" + key)), the same as before the speed work', async () => {
    const secretKey = 'sk_test_sandbox';
    const shopperKey = '0b6f9d6e-2b9e-4d1c-9a51-2f8c1f0c9e11';
    const scopeKey = referenceHmac(secretKey, 'pay-checkout relay idempotency scope v1');
    const expected = Buffer.from(referenceHmac(scopeKey, `idempotency:${shopperKey}`)).toString('base64url');
    const scope = createIdempotencyScope(secretKey);
    assert.equal(await scope(shopperKey), expected);
    assert.equal(await scope(shopperKey), expected, 'the derived key is reused');
    assert.notEqual(await createIdempotencyScope('sk_test_other')(shopperKey), expected);
  });
});

describe('lookup token spellings', () => {
  it('accepts one spelling of a token: the unused low bits of its last character must be zero', async () => {
    const tokens = createLookupTokens(SECRET);
    const orderId = 'or_y9Pu2dNPcSxj0jOR0pSQwXvn';
    const token = await tokens.sign(orderId);
    assert.equal(token.length, 43, '32 bytes: 43 characters, the last carrying 4 bits and 2 unused');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1) as string);
    const spellings = [0, 1, 2, 3].map((low) => token.slice(0, -1) + alphabet[(last & ~3) | low]);
    const accepted = [];
    for (const spelling of spellings) if (await tokens.verify(orderId, spelling)) accepted.push(spelling);
    assert.deepEqual(accepted, [token]);
  });
});
