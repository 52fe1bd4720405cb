/**
 * Property-based tests of the relay's parsers (issue #7): random and hostile
 * bodies and headers (wrong types, huge strings, deep nesting, unicode with
 * lone surrogates, `__proto__`/`constructor`/`prototype` keys, broken JSON,
 * bytes that are not UTF-8) against the real relay, called as a handler and
 * over real HTTP, in front of a real sandbox. Every answer is a `4xx` in the
 * error shape unless the body is a valid checkout; never a `5xx`, never a
 * crash, never an order from an invalid body, and no prototype polluted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type RunningSandbox, SANDBOX_KEYS, startSandbox } from '../../../src/sandbox/index.js';
import { RELAY_MAX_BODY_BYTES } from '../../../src/server/handlers/handler-config.js';
import {
  type CheckoutRelay,
  type CheckoutRelayEvent,
  createLookupTokens,
  listen,
  type RunningServer,
} from '../../../src/server/index.js';
import {
  checkoutIntentSchema,
  createAnswerSchema,
  isValidIdempotencyKey,
  lookupAnswerSchema,
  lookupRequestSchema,
} from '../../../src/shared/wire.js';
import { lineItems, priceAnyCart } from '../../fixtures/checkout-data.js';
import {
  bodyBytes,
  contentType,
  type HostileBody,
  hostileBody,
  mutatedBody,
  POLLUTION_MARKER,
  parsedAsServerSees,
  prototypeSnapshot,
  unicodeString,
} from '../../fixtures/hostile-json.js';
import {
  assertErrorShape,
  assertNothingBroke,
  headerText,
  headerValue,
  JSON_TYPES,
  RUNS,
} from '../../fixtures/property.js';
import { createTestRelay, LOOKUP_SECRET } from '../../fixtures/relay.js';
import { clockAhead } from '../../fixtures/relay-clock.js';
import { shopperIntent } from '../../fixtures/simulated-shopper.js';

/** The Node adapter's own cap in front of the relay: the relay's (16 KiB). */
const ADAPTER_MAX_BODY_BYTES = RELAY_MAX_BODY_BYTES;

/**
 * Idempotency-Key choices; `fresh`, `padded` and `proto` become a new valid
 * key each time, so no run replays or reuses an earlier run's key.
 */
const idempotencyKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant('fresh') },
  fc.constant(undefined),
  headerText,
  fc.constantFrom(
    '',
    'short',
    `k${'x'.repeat(255)}`,
    'key with spaces in it, long enough',
    'padded',
    'proto',
  ),
);

function keyFor(choice: string | undefined): string | undefined {
  const fresh = crypto.randomUUID();
  if (choice === 'fresh') return fresh;
  if (choice === 'padded') return ` ${fresh}\t`;
  if (choice === 'proto') return `__proto__-${fresh}`;
  return choice;
}

interface Sent {
  status: number;
  text: string;
  headers: Headers;
}

let sandbox: RunningSandbox;
let relay: CheckoutRelay;
let server: RunningServer;
let events: CheckoutRelayEvent[];
const upstreamLookups = { count: 0 };
/** The relay's clock: moved past the last read before each lookup, so none shares it. */
const relayTime = clockAhead();
let prototypesBefore: string[];

before(async () => {
  prototypesBefore = prototypeSnapshot();
  sandbox = await startSandbox({ port: 0, approveAfterMs: 60_000 });
  events = [];
  relay = createTestRelay({
    baseUrl: sandbox.url,
    // The server decides the price whatever the cart: the cart is the page's to fill with anything.
    priceCart: priceAnyCart,
    fetch: (input, init) => {
      if (String(input).endsWith('/orders/lookup')) upstreamLookups.count++;
      return fetch(input, init);
    },
    // Hundreds of requests from one address: the limits are the rate-limit tests' to check.
    rateLimit: false,
    clock: relayTime.clock,
    onEvent: (event) => {
      events.push(event);
    },
  });
  server = await listen(relay.node);
});

after(async () => {
  await server.close();
  await sandbox.close();
});

async function send(
  route: 'orders' | 'lookup',
  body: HostileBody,
  headers: Record<string, string>,
  overHttp: boolean,
  method = 'POST',
): Promise<Sent> {
  const init: RequestInit = {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: bodyBytes(body) as Uint8Array<ArrayBuffer> }),
  };
  const response = overHttp
    ? await fetch(`${server.url}/api/checkout/${route}`, init)
    : await relay.handle(new Request(`https://shop.example/api/checkout/${route}`, init), {
        clientAddress: '203.0.113.9',
      });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** What every answer must be, whatever was sent. */
function assertSafe(answer: Sent): void {
  assertNothingBroke(answer, SANDBOX_KEYS.secret, prototypesBefore);
  const broken = events.filter(
    (event) => event.type === 'internal_error' || event.type === 'price_cart_failed',
  );
  assert.deepEqual(broken, [], 'the relay failed inside');
}

/** Every UTF-8 byte of `text` percent-encoded (lone surrogates become U+FFFD, as on the wire). */
function percentEncoded(text: string): string {
  return Array.from(new TextEncoder().encode(text), (byte) => `%${byte.toString(16).padStart(2, '0')}`).join(
    '',
  );
}

/** The status the relay's wire gives a create, in the order the relay checks (adapter cap, key, type, size, JSON, intent). */
function expectedCreateStatus(
  body: HostileBody,
  key: string | undefined,
  type: string,
  overHttp: boolean,
): number {
  const bytes = bodyBytes(body).byteLength;
  if (overHttp && bytes > ADAPTER_MAX_BODY_BYTES) return 413;
  if (!isValidIdempotencyKey(key === undefined ? null : headerValue(key))) return 400;
  if (!JSON_TYPES.has(type)) return 415;
  if (bytes > RELAY_MAX_BODY_BYTES) return 413;
  const parsed = parsedAsServerSees(body);
  if (!parsed.ok) return 400;
  return checkoutIntentSchema.safeParse(parsed.value).success ? 200 : 400;
}

describe('relay parsers under random and hostile input', () => {
  const validIntent = shopperIntent('Ama Mensah', '0241234567', { items: [{ sku: 'tote', quantity: 1 }] });

  it('create: 4xx in the error shape for every invalid request, an order only from a valid one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: mutatedBody(validIntent) }, hostileBody),
        idempotencyKey,
        contentType,
        fc.boolean(),
        async (body, keyChoice, type, overHttp) => {
          const key = keyFor(keyChoice);
          const headers: Record<string, string> = { 'content-type': type };
          if (key !== undefined) headers['idempotency-key'] = key;
          const ordersBefore = sandbox.sandbox.createdOrderCount;
          const answer = await send('orders', body, headers, overHttp);
          assertSafe(answer);
          const expected = expectedCreateStatus(body, key, type, overHttp);
          assert.equal(answer.status, expected, `${body.how}: ${answer.text.slice(0, 200)}`);
          if (expected === 200) {
            createAnswerSchema.parse(JSON.parse(answer.text));
            assert.equal(sandbox.sandbox.createdOrderCount, ordersBefore + 1);
          } else {
            assertErrorShape(answer);
            assert.equal(sandbox.sandbox.createdOrderCount, ordersBefore, 'an order from an invalid body');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('lookup: 4xx for every body but the real order id with its token; the service is asked only then', async () => {
    const [orderId] = sandbox.sandbox.seedOrders(1, {
      execute_payment: true,
      customer_data: validIntent.customer_data,
      payment_method_data: validIntent.payment_method_data,
      line_items: lineItems,
    });
    assert.ok(orderId);
    const lookupToken = await createLookupTokens(LOOKUP_SECRET).sign(orderId);
    const validLookup = { order_id: orderId, lookup_token: lookupToken };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: mutatedBody(validLookup) }, hostileBody),
        contentType,
        fc.boolean(),
        async (body, type, overHttp) => {
          const asked = upstreamLookups.count;
          // Past the sharing window of the last lookup, so a genuine one is asked of the service.
          relayTime.pastSharedReads();
          const answer = await send('lookup', body, { 'content-type': type }, overHttp);
          assertSafe(answer);
          const parsed = parsedAsServerSees(body);
          const request = parsed.ok ? lookupRequestSchema.safeParse(parsed.value) : undefined;
          const genuine =
            JSON_TYPES.has(type) &&
            bodyBytes(body).byteLength <= RELAY_MAX_BODY_BYTES &&
            request?.success === true &&
            request.data.order_id === orderId &&
            request.data.lookup_token === lookupToken;
          if (genuine) {
            assert.equal(answer.status, 200, body.how);
            const { order } = lookupAnswerSchema.parse(JSON.parse(answer.text));
            assert.deepEqual(Object.keys(order).sort(), ['amount', 'id', 'payment', 'status']);
            assert.equal(upstreamLookups.count, asked + 1);
          } else {
            assert.ok([400, 403, 413, 415].includes(answer.status), `${body.how}: ${answer.status}`);
            assertErrorShape(answer);
            assert.equal(upstreamLookups.count, asked, 'the service was asked for an invalid lookup');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('any method on any path: a 4xx in the error shape (or a preflight answer), never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'POST', 'HEAD'),
        fc.oneof(
          fc.constantFrom('orders', 'lookup', 'orders/', '../orders', 'lookup/x', '', '%2e%2e/orders'),
          unicodeString.map(percentEncoded),
        ),
        hostileBody,
        async (method, path, body) => {
          const response = await relay.handle(
            new Request(`https://shop.example/api/checkout/${path}`, {
              method,
              headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
              ...(method === 'GET' || method === 'HEAD'
                ? {}
                : { body: bodyBytes(body) as Uint8Array<ArrayBuffer> }),
            }),
            { clientAddress: '203.0.113.9' },
          );
          const answer = { status: response.status, text: await response.text(), headers: response.headers };
          assertSafe(answer);
          // A preflight with no allowed origin is 403; an unknown path is 404 whatever the method.
          if (method === 'OPTIONS')
            assert.ok([204, 403, 404].includes(answer.status), `preflight ${answer.status}`);
          if (answer.status >= 400 && method !== 'HEAD') assertErrorShape(answer);
        },
      ),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('leaves Object.prototype and the other built-in prototypes as they were', () => {
    assert.deepEqual(prototypeSnapshot(), prototypesBefore);
    assert.equal(({} as Record<string, unknown>)[POLLUTION_MARKER], undefined);
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
  });
});
