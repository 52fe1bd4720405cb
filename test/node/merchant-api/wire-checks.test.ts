/**
 * What the merchant API refuses before the relay sees it, over loopback
 * HTTP: a checkout body that is not JSON (`415`), over 16 KiB (`413`), not
 * an object, or with a field wrong or unknown (`400` whose `param` is the
 * dotted path of the field, such as `line_items[0].unit_price.value`); a
 * path it does not have (`404`) and a method a route does not take (`405`
 * with `Allow`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_KEY, merchantApiStack, SHOP_ORIGIN } from '../../fixtures/merchant-api.js';

/** A body `POST /v1/checkouts` takes: two totes for cart-301. */
function checkoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    line_items: [{ name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 } }],
    reference: 'cart-301',
    ...overrides,
  };
}

/** A line item of one tote, with `overrides`. */
function line(overrides: Record<string, unknown> = {}) {
  return { name: 'Kente tote', quantity: 1, unit_price: { currency: 'ghs', value: 12_500 }, ...overrides };
}

/** A checkout of one line item with `overrides`. */
function withLine(overrides: Record<string, unknown>) {
  return checkoutBody({ line_items: [line(overrides)] });
}

const INVALID: [string, Record<string, unknown>, string][] = [
  ['no line items', checkoutBody({ line_items: undefined }), 'line_items'],
  ['an empty list', checkoutBody({ line_items: [] }), 'line_items'],
  ['101 lines', checkoutBody({ line_items: Array(101).fill(line()) }), 'line_items'],
  ['a price of 0', withLine({ unit_price: { currency: 'ghs', value: 0 } }), 'line_items[0].unit_price.value'],
  [
    'a price in cedis',
    withLine({ unit_price: { currency: 'ghs', value: 125.5 } }),
    'line_items[0].unit_price.value',
  ],
  [
    'a price as text',
    withLine({ unit_price: { currency: 'ghs', value: '12500' } }),
    'line_items[0].unit_price.value',
  ],
  [
    'another currency',
    withLine({ unit_price: { currency: 'usd', value: 100 } }),
    'line_items[0].unit_price.currency',
  ],
  [
    'camelCase unitPrice',
    withLine({ unit_price: undefined, unitPrice: { currency: 'ghs', value: 1 } }),
    'line_items[0].unitPrice',
  ],
  ['no name', withLine({ name: '   ' }), 'line_items[0].name'],
  ['a quantity of 0', withLine({ quantity: 0 }), 'line_items[0].quantity'],
  ['a quantity of 1001', withLine({ quantity: 1001 }), 'line_items[0].quantity'],
  ['an empty sku', withLine({ sku: '' }), 'line_items[0].sku'],
  ['no reference', checkoutBody({ reference: undefined }), 'reference'],
  ['a reference with a space', checkoutBody({ reference: 'cart 1' }), 'reference'],
  ['camelCase lineItems', { lineItems: [], reference: 'cart-1' }, 'lineItems'],
  ['a number in metadata', checkoutBody({ metadata: { channel: 7 } }), 'metadata.channel'],
  ['a long metadata value', checkoutBody({ metadata: { note: 'n'.repeat(501) } }), 'metadata.note'],
  [
    '21 metadata keys',
    checkoutBody({ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }),
    'metadata',
  ],
  ['a 10 s expiry', checkoutBody({ expires_in: 10 }), 'expires_in'],
  ['a two-day expiry', checkoutBody({ expires_in: 172_800 }), 'expires_in'],
  ['an origin not the shop’s', checkoutBody({ origin: 'https://elsewhere.example' }), 'origin'],
];

describe('the merchant API checks the wire', () => {
  it('answers 400 naming the field at fault, as a dotted path', async () => {
    const stack = await merchantApiStack();
    for (const [what, body, param] of INVALID) {
      const answer = await stack.v1('/v1/checkouts', { body });
      assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error.code, 'invalid_request', what);
      assert.equal(answer.body.error.type, 'invalid_request_error', what);
      assert.equal(answer.body.error.param, param, what);
      assert.ok(answer.body.error.message.startsWith(`${param}: `), `${what}: ${answer.body.error.message}`);
    }
  });

  it('says what it expected', async () => {
    const stack = await merchantApiStack();
    const price = await stack.v1('/v1/checkouts', {
      body: withLine({ unit_price: { currency: 'ghs', value: 0 } }),
    });
    assert.match(price.body.error.message, /whole number of minor units/);
    const camel = await stack.v1('/v1/checkouts', { body: { lineItems: [], reference: 'cart-1' } });
    assert.match(camel.body.error.message, /unknown field.*snake_case/);
    const origin = await stack.v1('/v1/checkouts', {
      body: checkoutBody({ origin: 'https://elsewhere.example' }),
    });
    assert.match(origin.body.error.message, /https:\/\/shop\.example/);
  });

  it('takes null for an optional field, as a backend’s JSON encoder may write an unset one', async () => {
    const stack = await merchantApiStack();
    const body = checkoutBody({ metadata: null, expires_in: null, origin: null });
    const answer = await stack.v1('/v1/checkouts', { body: { ...body, line_items: [line({ sku: null })] } });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual([answer.body.metadata, answer.body.origin], [{}, null]);
    assert.equal(Date.parse(answer.body.expires_at) - Date.parse(answer.body.created_at), 3_600_000);
  });

  it('answers what the relay itself refuses as a 400 at the field’s wire path', async () => {
    // The API allows an origin the relay does not: the relay's own check is the last word.
    const stack = await merchantApiStack({ allowedOrigins: [] }, { allowedOrigins: [SHOP_ORIGIN] });
    const answer = await stack.v1('/v1/checkouts', { body: checkoutBody({ origin: SHOP_ORIGIN }) });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.error.param, 'origin');
    assert.match(answer.body.error.message, /^origin: expected one of the relay's allowedOrigins/);
  });

  it('refuses a body that is not a JSON object: 415 for another type, 400 for bad JSON or an array', async () => {
    const stack = await merchantApiStack();
    const text = await stack.v1('/v1/checkouts', {
      rawBody: JSON.stringify(checkoutBody()),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 415);
    assert.equal(text.body.error.code, 'unsupported_media_type');
    const form = await stack.v1('/v1/checkouts', {
      rawBody: 'reference=cart-1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    for (const rawBody of ['{"reference":', '[]', '"cart"', '']) {
      const answer = await stack.v1('/v1/checkouts', { rawBody, method: 'POST' });
      assert.equal(answer.status, 400, rawBody);
    }
  });

  it('answers 413 to a body over 16 KiB, framed or streamed', async () => {
    const stack = await merchantApiStack();
    const big = checkoutBody({ metadata: { note: 'n'.repeat(17 * 1024) } });
    const framed = await stack.v1('/v1/checkouts', { body: big });
    assert.equal(framed.status, 413);
    assert.equal(framed.body.error.code, 'payload_too_large');
    // In process, without a Content-Length: counted as it arrives.
    const streamed = await stack.api(
      new Request('http://127.0.0.1/v1/checkouts', {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: new Blob([JSON.stringify(big)]).stream(),
        duplex: 'half',
      } as RequestInit),
    );
    assert.equal(streamed.status, 413);
  });

  it('answers 404 to a path it does not have and 405 with Allow to a method a route does not take', async () => {
    const stack = await merchantApiStack();
    for (const path of [
      '/v1',
      '/v1/',
      '/v1/checkout',
      '/v1/orders/or_abc/refunds',
      '/v1/checkouts//x',
      '/v2/orders',
    ]) {
      const answer = await stack.v1(path);
      assert.equal(answer.status, 404, path);
      assert.equal(answer.body.error.code, 'resource_not_found', path);
    }
    const methods: [string, string, string][] = [
      ['/v1/checkouts', 'GET', 'POST'],
      ['/v1/checkouts', 'PUT', 'POST'],
      ['/v1/checkouts/cs_AAAAAAAAAAAAAAAAAAAAAAAA', 'POST', 'GET'],
      ['/v1/orders', 'POST', 'GET'],
      ['/v1/orders/or_abc', 'DELETE', 'GET'],
      ['/v1/orders?reference=cart-1', 'OPTIONS', 'GET'],
    ];
    for (const [path, method, allow] of methods) {
      const answer = await stack.v1(path, { method, ...(method === 'POST' ? { body: {} } : {}) });
      assert.equal(answer.status, 405, `${method} ${path}`);
      assert.equal(answer.headers.get('allow'), allow, `${method} ${path}`);
    }
  });
});
