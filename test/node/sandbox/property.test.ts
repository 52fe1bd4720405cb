/**
 * Property-based tests of the sandbox's parsers (issue #7): random and
 * hostile bodies and headers on every endpoint and on the control surface,
 * called as a handler and over real HTTP. Every answer is a `4xx` in the
 * error shape unless the request is valid; never a `5xx`, never a crash,
 * never an order from an invalid body, and no prototype polluted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type RunningSandbox, SANDBOX_KEYS, type Sandbox, startSandbox } from '../../../src/sandbox/index.js';
import {
  chimeLookupSchema,
  controlDeclineSchema,
  controlOrderSchema,
  orderCreationSchema,
  orderLookupSchema,
  orderPageSchema,
  otpLookupSchema,
} from '../../../src/sandbox/order-schema.js';
import {
  SERVICE_IDEMPOTENCY_KEY_PATTERN,
  SERVICE_MAX_BODY_BYTES,
  SERVICE_MAX_JSON_DEPTH,
} from '../../../src/shared/service-contract.js';
import { creationInput } from '../../fixtures/checkout-data.js';
import {
  bodyBytes,
  contentType,
  type HostileBody,
  hostileBody,
  mutatedBody,
  nestingDepth,
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

const BEARER = `Bearer ${SANDBOX_KEYS.secret}`;

/** `Authorization` values: mostly the secret key, else every way to get it wrong. */
const authorization = fc.oneof(
  { weight: 8, arbitrary: fc.constant(BEARER) },
  fc.constantFrom(
    undefined,
    '',
    `Bearer ${SANDBOX_KEYS.publishable}`,
    `Bearer ${SANDBOX_KEYS.readOnly}`,
    `bearer ${SANDBOX_KEYS.secret}`,
    `Bearer  ${SANDBOX_KEYS.secret}`,
    'Bearer sk_live_0123456789',
    'Bearer __proto__',
    'Basic c2tfdGVzdF9zYW5kYm94Og==',
  ),
  headerText,
);

/** `Idempotency-Key` choices; `fresh` is a new key each run, so no run replays another's. */
const idempotencyKey = fc.oneof(
  { weight: 5, arbitrary: fc.constant('fresh') },
  { weight: 2, arbitrary: fc.constant(undefined) },
  headerText,
  fc.constantFrom('', 'x'.repeat(256), 'key with spaces', 'clé-é'),
);

interface Answer {
  status: number;
  text: string;
}

let running: RunningSandbox;
let sandbox: Sandbox;
let prototypesBefore: string[];
const valid: Record<string, unknown> = {};

before(async () => {
  prototypesBefore = prototypeSnapshot();
  running = await startSandbox({ port: 0, approveAfterMs: 60_000 });
  sandbox = running.sandbox;
  const [pending, paid] = sandbox.seedOrders(2, creationInput);
  assert.ok(pending && paid);
  sandbox.approve(paid);
  const lookup = (orderId: string) =>
    send('/orders/lookup', { kind: 'text', text: JSON.stringify({ order_id: orderId }), how: '' }, {}, false);
  const { order } = JSON.parse((await lookup(paid)).text) as { order: { payment: Record<string, string> } };
  valid['/orders/new'] = creationInput;
  valid['/orders/lookup'] = { order_id: pending };
  valid['/orders/page'] = { page_number: 1, page_size: 10 };
  valid['/otp/lookup'] = { otp_id: order.payment.otp_id };
  valid['/chimes/lookup'] = { chime_id: order.payment.chime_id };
  valid['/_sandbox/payments/approve'] = { order_id: pending };
  valid['/_sandbox/payments/decline'] = { order_id: pending, reason: 'insufficient_funds' };
  valid['/_sandbox/payments/prompt'] = { order_id: pending };
});

after(() => running.close());

async function send(
  path: string,
  body: HostileBody,
  headers: Record<string, string | undefined>,
  overHttp: boolean,
  method = 'POST',
): Promise<Answer> {
  const sent: Record<string, string> = { 'content-type': 'application/json', authorization: BEARER };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete sent[name];
    else sent[name] = value;
  }
  const init: RequestInit = {
    method,
    headers: sent,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: bodyBytes(body) as Uint8Array<ArrayBuffer> }),
  };
  const response = overHttp
    ? await fetch(`${running.url}${path}`, init)
    : await sandbox.handle(new Request(`http://sandbox.test${path}`, init));
  return { status: response.status, text: await response.text() };
}

function assertSafe(answer: Answer, how: string): void {
  assertNothingBroke(answer, SANDBOX_KEYS.secret, prototypesBefore, how);
}

/** The body as the sandbox reads it, when it passes type, size, JSON, object and depth checks. */
function readableBody(
  body: HostileBody,
  type: string,
): { ok: true; value: object } | { ok: false; status: number } {
  if (!JSON_TYPES.has(type)) return { ok: false, status: 415 };
  if (bodyBytes(body).byteLength > SERVICE_MAX_BODY_BYTES) return { ok: false, status: 413 };
  const parsed = parsedAsServerSees(body);
  if (
    !parsed.ok ||
    parsed.value === null ||
    typeof parsed.value !== 'object' ||
    Array.isArray(parsed.value)
  ) {
    return { ok: false, status: 400 };
  }
  if (nestingDepth(parsed.value) > SERVICE_MAX_JSON_DEPTH) return { ok: false, status: 400 };
  return { ok: true, value: parsed.value };
}

/** The status of `/orders/new`, in the order the sandbox checks: adapter cap, key, body, Idempotency-Key, input. */
function expectedCreateStatus(
  body: HostileBody,
  auth: string | undefined,
  key: string | undefined,
  type: string,
  overHttp: boolean,
): number {
  if (overHttp && bodyBytes(body).byteLength > SERVICE_MAX_BODY_BYTES) return 413;
  const presented = auth === undefined ? undefined : headerValue(auth);
  if (presented === `Bearer ${SANDBOX_KEYS.publishable}` || presented === `Bearer ${SANDBOX_KEYS.readOnly}`) {
    return 403;
  }
  if (presented !== BEARER) return 401;
  const readable = readableBody(body, type);
  if (!readable.ok) return readable.status;
  if (key !== undefined && !SERVICE_IDEMPOTENCY_KEY_PATTERN.test(headerValue(key))) return 400;
  return orderCreationSchema.safeParse(readable.value).success ? 200 : 400;
}

describe('sandbox parsers under random and hostile input', () => {
  it('/orders/new: a 4xx in the error shape for every invalid request, an order only from a valid one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: mutatedBody(creationInput) }, hostileBody),
        authorization,
        idempotencyKey,
        contentType,
        fc.boolean(),
        async (body, auth, keyChoice, type, overHttp) => {
          const key = keyChoice === 'fresh' ? crypto.randomUUID() : keyChoice;
          const ordersBefore = sandbox.createdOrderCount;
          const answer = await send(
            '/orders/new',
            body,
            { authorization: auth, 'idempotency-key': key, 'content-type': type },
            overHttp,
          );
          assertSafe(answer, body.how);
          const expected = expectedCreateStatus(body, auth, key, type, overHttp);
          assert.equal(answer.status, expected, `${body.how}: ${answer.text.slice(0, 200)}`);
          if (expected === 200) {
            assert.match((JSON.parse(answer.text) as { order: { id: string } }).order.id, /^or_/);
            assert.equal(sandbox.createdOrderCount, ordersBefore + 1);
          } else {
            assertErrorShape(answer);
            assert.equal(sandbox.createdOrderCount, ordersBefore, 'an order from an invalid request');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  const readRoutes = {
    '/orders/lookup': orderLookupSchema,
    '/orders/page': orderPageSchema,
    '/otp/lookup': otpLookupSchema,
    '/chimes/lookup': chimeLookupSchema,
    '/_sandbox/payments/approve': controlOrderSchema,
    '/_sandbox/payments/decline': controlDeclineSchema,
    '/_sandbox/payments/prompt': controlOrderSchema,
  } as const;

  for (const [path, schema] of Object.entries(readRoutes)) {
    it(`${path}: 200 only for a valid body, else a 4xx in the error shape; no order made`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof({ weight: 3, arbitrary: mutatedBody(valid[path]) }, hostileBody),
          contentType,
          fc.boolean(),
          async (body, type, overHttp) => {
            const ordersBefore = sandbox.createdOrderCount;
            const answer = await send(path, body, { 'content-type': type }, overHttp);
            assertSafe(answer, body.how);
            assert.equal(sandbox.createdOrderCount, ordersBefore);
            if (answer.status === 200) {
              const readable = readableBody(body, type);
              assert.ok(readable.ok && schema.safeParse(readable.value).success, `200 for ${body.how}`);
            } else {
              assert.ok(answer.status >= 400, `${answer.status} for ${body.how}`);
              assertErrorShape(answer);
            }
          },
        ),
        { numRuns: Math.ceil(RUNS / 4) },
      );
    });
  }

  it('any method on any path: a 4xx in the error shape, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'POST', 'HEAD'),
        fc.oneof(
          fc.constantFrom(
            ...Object.keys(valid),
            '/orders',
            '/_sandbox/payments/x',
            '/orders/new/../lookup',
            '/',
          ),
          unicodeString.map(
            (text) =>
              `/${Array.from(new TextEncoder().encode(text), (byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')}`,
          ),
        ),
        hostileBody,
        async (method, path, body) => {
          const answer = await send(path, body, {}, false, method);
          assertSafe(answer, `${method} ${path}`);
          if (answer.status >= 400 && method !== 'HEAD') assertErrorShape(answer);
        },
      ),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('leaves Object.prototype and the other built-in prototypes as they were', () => {
    assert.deepEqual(prototypeSnapshot(), prototypesBefore);
    assert.equal(({} as Record<string, unknown>)[POLLUTION_MARKER], undefined);
  });
});
