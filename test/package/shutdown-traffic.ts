/**
 * Shoppers creating orders while a shop's server shuts down: each create on
 * a connection of its own from a loopback address of its own (so the relay's
 * per-client limit never refuses the traffic), and a create held in flight,
 * its headers taken by the server (`Expect: 100-continue` answered) and its
 * body not yet sent, to show that a request in flight when SIGTERM comes is
 * still answered.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';

/** What one create got: a status, or the network error that stood for one. */
export type CreateOutcome = { status: number } | { error: string };

/** Where a shop takes its creates, and the cart its page sends. */
export interface CreateRoute {
  path: string;
  cart: unknown;
}

/** The example shop's: its relay under /api/checkout/, its cart of product ids. */
export const SHOP_CREATES: CreateRoute = {
  path: '/api/checkout/orders',
  cart: { items: [{ product_id: 'kente-tote', quantity: 1 }] },
};

/** The `index`th shopper: a loopback address and a mobile-money number no other create uses. */
export function shopperOf(
  index: number,
  route: CreateRoute = SHOP_CREATES,
): { localAddress: string; body: string; path: string } {
  const number = `024${1_000_000 + index}`;
  const body = JSON.stringify({
    customer_data: { name: 'Ama Mensah', phone_number: `+233${number.slice(1)}` },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
    cart: route.cart,
  });
  return { localAddress: `127.1.${index >> 8}.${(index & 255) + 1}`, body, path: route.path };
}

function createOptions(url: string, localAddress: string, body: string, path: string) {
  const { hostname, port } = new URL(url);
  return {
    host: hostname,
    port: Number(port),
    path,
    method: 'POST',
    localAddress,
    agent: false as const,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'idempotency-key': crypto.randomUUID(),
    },
  };
}

/** Sends one create from `localAddress` on a connection of its own. */
export function createFrom(
  url: string,
  localAddress: string,
  body: string,
  path = SHOP_CREATES.path,
): Promise<CreateOutcome> {
  return new Promise((resolve) => {
    const sent = request(createOptions(url, localAddress, body, path), (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
    });
    sent.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    sent.end(body);
  });
}

/**
 * A create whose headers the server has taken (it answered `100 Continue`)
 * and whose body waits for `finish()`, which sends it and resolves with the
 * answer.
 */
export function heldCreate(
  url: string,
  localAddress: string,
  body: string,
  path = SHOP_CREATES.path,
): Promise<{ finish(): Promise<{ status: number; text: string }> }> {
  const options = createOptions(url, localAddress, body, path);
  return new Promise((taken, failed) => {
    let answered: (answer: { status: number; text: string }) => void = () => undefined;
    const answer = new Promise<{ status: number; text: string }>((resolve) => {
      answered = resolve;
    });
    const sent = request(
      { ...options, headers: { ...options.headers, expect: '100-continue' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => answered({ status: response.statusCode ?? 0, text }));
      },
    );
    sent.on('error', failed);
    const finish = () => {
      sent.end(body);
      return answer;
    };
    sent.on('continue', () => taken({ finish }));
    sent.flushHeaders();
  });
}

/**
 * Creates sent without pause by `workers` shoppers, until `stop()`; each
 * outcome tagged with whether it was sent before `markSignalled()`.
 */
export function startCreates(url: string, workers: number, limit = 2_000, route = SHOP_CREATES) {
  const outcomes: { afterSignal: boolean; outcome: CreateOutcome }[] = [];
  const waiters = new Set<() => void>();
  let sent = 0;
  let stopped = false;
  let signalled = false;
  const worker = async () => {
    while (!stopped && sent < limit) {
      const { localAddress, body } = shopperOf(sent++, route);
      const afterSignal = signalled;
      outcomes.push({ afterSignal, outcome: await createFrom(url, localAddress, body, route.path) });
      for (const waiter of waiters) waiter();
    }
  };
  const running = Promise.all(Array.from({ length: workers }, worker));
  return {
    outcomes,
    markSignalled() {
      signalled = true;
    },
    /** Resolves once `count` creates are answered; rejects after `timeoutMs`. */
    answered(count: number, timeoutMs: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (outcomes.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${outcomes.length} of ${count} creates answered within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/**
 * Resolves once `child` printed a line starting with `start` (or matching it,
 * for a pattern); rejects after `timeoutMs` or if it exits first.
 */
function printedLine(child: ChildProcess, start: string | RegExp, timeoutMs: number): Promise<void> {
  const matches = (line: string) => (typeof start === 'string' ? line.startsWith(start) : start.test(line));
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.split('\n').some(matches)) done();
    };
    const onExit = () => done(new Error(`exited before printing "${start}"`));
    const timer = setTimeout(() => done(new Error(`no "${start}" within ${timeoutMs} ms`)), timeoutMs);
    function done(error?: Error) {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      error ? reject(error) : resolve();
    }
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * The shutdown recipe under traffic: creates flow (to `route`), one is held
 * in flight, SIGTERM; once the server says it is closing (a line starting
 * with `closingLine`, or matching it as a pattern), a new connection is
 * refused, the held create is answered `200`, and the process exits 0. No create gets a 5xx. Answers a summary.
 */
export async function checkShutdownUnderTraffic(
  url: string,
  child: ChildProcess,
  closingLine: string | RegExp,
  route: CreateRoute = SHOP_CREATES,
): Promise<string> {
  const traffic = startCreates(url, 2, 2_000, route);
  try {
    await traffic.answered(10, 30_000);
    const inFlight = shopperOf(3_000, route);
    const held = await heldCreate(url, inFlight.localAddress, inFlight.body, route.path);
    const closing = printedLine(child, closingLine, 10_000);
    const exited = once(child, 'exit');
    traffic.markSignalled();
    child.kill('SIGTERM');
    await closing;
    await traffic.stop();
    const late = shopperOf(3_001, route);
    assert.deepEqual(await createFrom(url, late.localAddress, late.body, route.path), {
      error: 'ECONNREFUSED',
    });
    const answer = await held.finish();
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(await exited, [0, null], 'a clean exit');
  } finally {
    await traffic.stop();
  }
  const before = traffic.outcomes.filter((sent) => !sent.afterSignal).map((sent) => sent.outcome);
  const after = traffic.outcomes.filter((sent) => sent.afterSignal).map((sent) => sent.outcome);
  assert.ok(
    before.every((outcome) => 'status' in outcome && outcome.status === 200),
    JSON.stringify(before),
  );
  // After SIGTERM a create is answered, or finds no server: the element retries, another process answers.
  for (const outcome of after) {
    if ('status' in outcome) assert.equal(outcome.status, 200);
    else assert.match(outcome.error, /^(ECONNREFUSED|ECONNRESET)$/);
  }
  return `${before.length} creates before SIGTERM, ${after.length} after: ${JSON.stringify(after)}`;
}
