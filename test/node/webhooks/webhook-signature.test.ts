/**
 * Webhook signatures and their verification, as Standard Webhooks 1.0 has
 * them: the specification's published vectors, its own JavaScript verifier
 * (`standardwebhooks`) accepting ours and ours accepting its, rotation with
 * two secrets, and every way a delivery can be altered, replayed or forged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../../src/server/index.js';
import {
  createWebhookSigner,
  generateWebhookSecret,
  isWebhookSecret,
  parseWebhookSecret,
  signWebhook,
  webhookSignatureHeaders,
} from '../../../src/server/webhooks/webhook-signature.js';
import {
  amongOtherSignatures,
  VECTOR_ID,
  VECTOR_INVALID_SIGNATURES,
  VECTOR_PAYLOAD,
  VECTOR_SECRET,
  VECTOR_SIGNATURE,
  VECTOR_TIMESTAMP,
} from '../../fixtures/standard-webhooks-vectors.js';

const AT_VECTOR_TIME = { now: VECTOR_TIMESTAMP * 1000 };
const BODY = '{"type":"order.paid","timestamp":"2026-11-28T08:00:00.000Z","data":{"order_id":"ord_1"}}';

/** The three headers of a delivery signed now under `secrets`. */
async function signedNow(secrets: string | string[], body = BODY, id = 'msg_AAAAAAAAAAAAAAAAAAAAAAAA') {
  return webhookSignatureHeaders(createWebhookSigner(secrets), id, Math.floor(Date.now() / 1000), body);
}

/** The reason `promise` rejects with, which must be a WebhookVerificationError. */
async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail('it verified'),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof WebhookVerificationError, String(error));
  return error.reason;
}

describe('webhook signatures', () => {
  it('match the published test vector', async () => {
    assert.equal(
      await signWebhook(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_PAYLOAD),
      VECTOR_SIGNATURE,
    );
  });

  it('verify the published vector and refuse each published bad signature', async () => {
    const headers = { 'webhook-id': VECTOR_ID, 'webhook-timestamp': String(VECTOR_TIMESTAMP) };
    const event = await verifyWebhook(
      VECTOR_SECRET,
      { ...headers, 'webhook-signature': VECTOR_SIGNATURE },
      VECTOR_PAYLOAD,
      AT_VECTOR_TIME,
    );
    assert.deepEqual(event, { test: 2432232314 });
    const multi = { ...headers, 'webhook-signature': amongOtherSignatures(VECTOR_SIGNATURE) };
    assert.deepEqual(await verifyWebhook(VECTOR_SECRET, multi, VECTOR_PAYLOAD, AT_VECTOR_TIME), {
      test: 2432232314,
    });
    for (const signature of VECTOR_INVALID_SIGNATURES) {
      const forged = verifyWebhook(
        VECTOR_SECRET,
        { ...headers, 'webhook-signature': signature },
        VECTOR_PAYLOAD,
        AT_VECTOR_TIME,
      );
      assert.equal(await reasonOf(forged), 'no_matching_signature', signature);
    }
  });

  it('are accepted by the specification’s own JavaScript verifier, and ours accepts its', async () => {
    const secret = generateWebhookSecret();
    const headers = await signedNow(secret);
    assert.deepEqual(new Webhook(secret).verify(BODY, { ...headers }), JSON.parse(BODY));
    const theirs = new Webhook(secret).sign('msg_theirs', new Date(), BODY);
    const event = await verifyWebhook(
      secret,
      {
        'webhook-id': 'msg_theirs',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': theirs,
      },
      BODY,
    );
    assert.equal(event.type, 'order.paid');
  });

  it('carry one signature per secret during a rotation, and either secret verifies', async () => {
    const [before, after] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = await signedNow([before, after]);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [before, after]) {
      assert.equal((await verifyWebhook(secret, headers, BODY)).type, 'order.paid');
      assert.deepEqual(new Webhook(secret).verify(BODY, { ...headers }), JSON.parse(BODY));
    }
    assert.equal((await verifyWebhook([generateWebhookSecret(), after], headers, BODY)).type, 'order.paid');
    assert.equal(
      await reasonOf(verifyWebhook(generateWebhookSecret(), headers, BODY)),
      'no_matching_signature',
    );
  });

  it('refuse a tampered body, id or timestamp', async () => {
    const secret = generateWebhookSecret();
    const headers = await signedNow(secret);
    const tampered = BODY.replace('ord_1', 'ord_2');
    assert.equal(await reasonOf(verifyWebhook(secret, headers, tampered)), 'no_matching_signature');
    const otherId = { ...headers, 'webhook-id': 'msg_BBBBBBBBBBBBBBBBBBBBBBBB' };
    assert.equal(await reasonOf(verifyWebhook(secret, otherId, BODY)), 'no_matching_signature');
    const otherTime = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) };
    assert.equal(await reasonOf(verifyWebhook(secret, otherTime, BODY)), 'no_matching_signature');
  });

  it('refuse a timestamp more than five minutes old or ahead, and accept one within', async () => {
    const secret = generateWebhookSecret();
    const signer = createWebhookSigner(secret);
    const now = Date.now();
    const at = (offsetSeconds: number) =>
      webhookSignatureHeaders(signer, 'msg_x', Math.floor(now / 1000) + offsetSeconds, BODY);
    assert.equal(await reasonOf(verifyWebhook(secret, await at(-301), BODY, { now })), 'timestamp_too_old');
    assert.equal(await reasonOf(verifyWebhook(secret, await at(301), BODY, { now })), 'timestamp_too_new');
    for (const offset of [-299, 299]) {
      assert.equal((await verifyWebhook(secret, await at(offset), BODY, { now })).type, 'order.paid');
    }
    const garbled = { ...(await at(0)), 'webhook-timestamp': 'hello' };
    assert.equal(await reasonOf(verifyWebhook(secret, garbled, BODY, { now })), 'invalid_timestamp');
  });

  it('refuse a delivery missing any of the three headers', async () => {
    const secret = generateWebhookSecret();
    const headers = await signedNow(secret);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers;
      assert.equal(await reasonOf(verifyWebhook(secret, rest, BODY)), 'missing_headers', name);
    }
  });

  it('read headers from a Headers object or a plain object in any case, and a body as bytes', async () => {
    const secret = generateWebhookSecret();
    const headers = await signedNow(secret);
    const shouted = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]),
    );
    assert.equal((await verifyWebhook(secret, shouted, BODY)).type, 'order.paid');
    assert.equal((await verifyWebhook(secret, new Headers(headers), Buffer.from(BODY))).type, 'order.paid');
    const bytes = new TextEncoder().encode(BODY);
    assert.equal((await verifyWebhook(secret, headers, bytes.buffer)).type, 'order.paid');
  });

  it('refuse a signed body that is not a JSON object', async () => {
    const secret = generateWebhookSecret();
    const headers = await signedNow(secret, 'not json');
    assert.equal(await reasonOf(verifyWebhook(secret, headers, 'not json')), 'invalid_body');
  });

  it('take only whsec_ secrets of 24 to 64 bytes, and never quote one in the error', async () => {
    assert.equal(parseWebhookSecret(VECTOR_SECRET).byteLength, 24);
    assert.ok(isWebhookSecret(generateWebhookSecret()));
    const short = `whsec_${Buffer.alloc(16, 7).toString('base64')}`;
    for (const bad of ['', 'whsec_', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_not base64!', short, 42]) {
      assert.equal(isWebhookSecret(bad), false, String(bad));
      assert.throws(
        () => parseWebhookSecret(bad, 'webhooks[0].secret'),
        (error: Error) =>
          error instanceof TypeError &&
          /webhooks\[0\]\.secret/.test(error.message) &&
          !error.message.includes('MfKQ'),
      );
    }
    await assert.rejects(verifyWebhook('sk_test_abc', {}, BODY), TypeError);
  });
  it('verify on a web runtime, with WebCrypto and no node:crypto', async () => {
    const secret = generateWebhookSecret();
    const headers = await signedNow(secret);
    const runtime = process as { getBuiltinModule?: unknown };
    const getBuiltinModule = runtime.getBuiltinModule;
    runtime.getBuiltinModule = undefined; // as on an edge runtime: hmac.ts and the compare fall back to web APIs
    try {
      assert.equal(
        await signWebhook(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_PAYLOAD),
        VECTOR_SIGNATURE,
      );
      assert.equal((await verifyWebhook(secret, new Headers(headers), BODY)).type, 'order.paid');
      assert.equal(await reasonOf(verifyWebhook(secret, headers, `${BODY} `)), 'no_matching_signature');
    } finally {
      runtime.getBuiltinModule = getBuiltinModule;
    }
  });
});
