/**
 * The service client (issue #2, "service client"): its retries with the same idempotency key, time-outs and Retry-After. Against the real
 * sandbox over loopback HTTP, with a real proxy in between where the wire
 * must break: a connection cut after the sandbox acted, a held answer, a 429
 * or a 503.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSandbox } from '../../../src/sandbox/index.js';
import {
  ServiceApiError,
  ServiceError,
  ServiceRateLimitError,
  ServiceTimeoutError,
} from '../../../src/server/index.js';
import { type FaultPlan, startFaultProxy } from '../../fixtures/fault-proxy.js';
import { errorAnswer } from '../../fixtures/hostile-answers.js';
import {
  loopbackSandbox,
  orderInput,
  overEachTransport,
  recordingSleep,
  rejection,
  SECRET,
} from '../../fixtures/service-client.js';

describe('createServiceClient', () => {
  const served = loopbackSandbox();

  overEachTransport((newClient) => {
    describe('retries with the same idempotency key', () => {
      it('a connection cut after the sandbox created the order: the retry returns the same order, the sandbox holds one', async () => {
        const proxy = await startFaultProxy(
          served.url,
          (index): FaultPlan => (index === 0 ? { kind: 'cut-after-upstream' } : { kind: 'forward' }),
        );
        try {
          const timing = recordingSleep();
          const client = newClient({ baseUrl: proxy.url, secretKey: SECRET, sleep: timing.sleep });
          const count = served.sandbox.createdOrderCount;
          const { order, replayed } = await client.orders.create(orderInput());
          assert.equal(served.sandbox.createdOrderCount, count + 1, 'exactly one order');
          assert.equal(replayed, true, 'the answer read is the replay of the first create');
          assert.equal(proxy.requests.length, 2);
          const [first, second] = proxy.requests;
          assert.equal(first?.upstreamStatus, 200, 'the sandbox acted on the first attempt');
          assert.equal(second?.headers['idempotency-key'], first?.headers['idempotency-key']);
          assert.equal(second?.upstreamHeaders?.get('idempotent-replayed'), 'true');
          const { order: read } = await client.orders.lookup(order.id);
          assert.equal(read.id, order.id);
          assert.equal(timing.delays.length, 1);
        } finally {
          await proxy.close();
        }
      });

      it('an answer held past timeoutMs: ServiceTimeoutError, and the retry gets the one order', async () => {
        // The first answer is held until the retry arrives: only the client's own time-out can end the wait.
        const proxy = await startFaultProxy(
          served.url,
          (index): FaultPlan => (index === 0 ? { kind: 'hold-answer' } : { kind: 'forward' }),
        );
        try {
          const count = served.sandbox.createdOrderCount;
          const noRetry = newClient({
            baseUrl: proxy.url,
            secretKey: SECRET,
            timeoutMs: 300,
            maxRetries: 0,
          });
          const key = crypto.randomUUID();
          const error = await rejection(noRetry.orders.create(orderInput(), { idempotencyKey: key }));
          assert.ok(error instanceof ServiceTimeoutError);
          assert.equal(error.code, 'timeout');
          const retrying = newClient({ baseUrl: proxy.url, secretKey: SECRET, timeoutMs: 300 });
          const { order } = await retrying.orders.create(orderInput(), { idempotencyKey: key });
          assert.match(order.id, /^or_/);
          assert.equal(served.sandbox.createdOrderCount, count + 1);
        } finally {
          await proxy.close();
        }
      });

      it('503 then success: retried with the same key after a full-jitter wait', async () => {
        const proxy = await startFaultProxy(
          served.url,
          (index): FaultPlan =>
            index < 2 ? errorAnswer(503, 'unavailable', 'api_error', 'down') : { kind: 'forward' },
        );
        try {
          const timing = recordingSleep();
          const client = newClient({
            baseUrl: proxy.url,
            secretKey: SECRET,
            random: () => 0.5,
            sleep: timing.sleep,
          });
          const { order } = await client.orders.create(orderInput());
          assert.match(order.id, /^or_/);
          assert.deepEqual(timing.delays, [100, 200]);
          const keys = new Set(proxy.requests.map((request) => request.headers['idempotency-key']));
          assert.equal(keys.size, 1);
        } finally {
          await proxy.close();
        }
      });

      it('gives up after maxRetries with the last error', async () => {
        const proxy = await startFaultProxy(served.url, () =>
          errorAnswer(500, 'internal_error', 'api_error', 'boom'),
        );
        try {
          const client = newClient({
            baseUrl: proxy.url,
            secretKey: SECRET,
            maxRetries: 3,
            sleep: recordingSleep().sleep,
          });
          const error = await rejection(client.orders.lookup('or_1'));
          assert.ok(error instanceof ServiceApiError);
          assert.equal(error.status, 500);
          assert.equal(proxy.requests.length, 4);
        } finally {
          await proxy.close();
        }
      });

      it('429: waits out Retry-After, then succeeds', async () => {
        const proxy = await startFaultProxy(
          served.url,
          (index): FaultPlan =>
            index === 0
              ? errorAnswer(429, 'rate_limited', 'rate_limit_error', 'slow down', {
                  headers: { 'retry-after': '2' },
                })
              : { kind: 'forward' },
        );
        try {
          const timing = recordingSleep();
          const client = newClient({ baseUrl: proxy.url, secretKey: SECRET, sleep: timing.sleep });
          const { order } = await client.orders.create(orderInput());
          assert.match(order.id, /^or_/);
          assert.deepEqual(timing.delays, [2000]);
        } finally {
          await proxy.close();
        }
      });

      it('429 asking for longer than maxRetryAfterMs is thrown at once with retryAfterMs', async () => {
        const proxy = await startFaultProxy(served.url, () =>
          errorAnswer(429, 'rate_limited', 'rate_limit_error', 'slow down', {
            headers: { 'retry-after': '120' },
          }),
        );
        try {
          const client = newClient({
            baseUrl: proxy.url,
            secretKey: SECRET,
            sleep: recordingSleep().sleep,
          });
          const error = await rejection(client.orders.lookup('or_1'));
          assert.ok(error instanceof ServiceRateLimitError);
          assert.equal(error.retryAfterMs, 120_000);
          assert.equal(proxy.requests.length, 1);
        } finally {
          await proxy.close();
        }
      });

      it('409 in flight: concurrent creates with one key end with one order', async () => {
        const slow = await startSandbox({ port: 0, approveAfterMs: 60_000, processingDelayMs: 150 });
        const proxy = await startFaultProxy(slow.url);
        try {
          const client = newClient({ baseUrl: proxy.url, secretKey: SECRET, maxRetries: 6 });
          const key = crypto.randomUUID();
          const answers = await Promise.all([
            client.orders.create(orderInput(), { idempotencyKey: key }),
            client.orders.create(orderInput(), { idempotencyKey: key }),
            client.orders.create(orderInput(), { idempotencyKey: key }),
          ]);
          assert.equal(new Set(answers.map((answer) => answer.order.id)).size, 1);
          assert.equal(slow.sandbox.createdOrderCount, 1);
          assert.ok(
            proxy.requests.some((request) => request.upstreamStatus === 409),
            'at least one attempt met the in-flight 409 and was retried',
          );
        } finally {
          await proxy.close();
          await slow.close();
        }
      });

      it('does not retry 400, 401, 403 or 404', async () => {
        for (const status of [400, 401, 403, 404]) {
          const proxy = await startFaultProxy(served.url, () => ({
            kind: 'answer',
            status,
            body: { error: { code: 'x', type: 'y', message: 'no' } },
          }));
          try {
            const client = newClient({
              baseUrl: proxy.url,
              secretKey: SECRET,
              sleep: recordingSleep().sleep,
            });
            await assert.rejects(client.orders.lookup('or_1'), ServiceError);
            assert.equal(proxy.requests.length, 1, `status ${status} was retried`);
          } finally {
            await proxy.close();
          }
        }
      });

      it('an aborted signal stops the call and its retries', async () => {
        const proxy = await startFaultProxy(served.url, () =>
          errorAnswer(503, 'unavailable', 'api_error', 'down'),
        );
        try {
          const controller = new AbortController();
          const client = newClient({
            baseUrl: proxy.url,
            secretKey: SECRET,
            sleep: async (_ms, signal) => {
              controller.abort(new Error('shopper left'));
              signal?.throwIfAborted();
            },
          });
          const error = await rejection(client.orders.lookup('or_1', { signal: controller.signal }));
          assert.equal((error as Error).message, 'shopper left');
          assert.equal(proxy.requests.length, 1);
        } finally {
          await proxy.close();
        }
      });
    });
  });
});
