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

/** The `index`th shopper: a loopback address and a mobile-money number no other create uses. */
export function shopperOf(index: number): { localAddress: string; body: string } {
  const number = `024${1_000_000 + index}`;
  const body = JSON.stringify({
    customer_data: { name: 'Ama Mensah', phone_number: `+233${number.slice(1)}` },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
    cart: { items: [{ product_id: 'kente-tote', quantity: 1 }] },
  });
  return { localAddress: `127.1.${index >> 8}.${(index & 255) + 1}`, body };
}

function createOptions(url: string, localAddress: string, body: string) {
  const { hostname, port } = new URL(url);
  return {
    host: hostname,
    port: Number(port),
    path: '/api/checkout/orders',
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
export function createFrom(url: string, localAddress: string, body: string): Promise<CreateOutcome> {
  return new Promise((resolve) => {
    const sent = request(createOptions(url, localAddress, body), (response) => {
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
): Promise<{ finish(): Promise<{ status: number; text: string }> }> {
  const options = createOptions(url, localAddress, body);
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
export function startCreates(url: string, workers: number, limit = 2_000) {
  const outcomes: { afterSignal: boolean; outcome: CreateOutcome }[] = [];
  const waiters = new Set<() => void>();
  let sent = 0;
  let stopped = false;
  let signalled = false;
  const worker = async () => {
    while (!stopped && sent < limit) {
      const { localAddress, body } = shopperOf(sent++);
      const afterSignal = signalled;
      outcomes.push({ afterSignal, outcome: await createFrom(url, localAddress, body) });
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

/** Resolves once `child` printed a line starting with `start`; rejects after `timeoutMs` or if it exits first. */
function printedLine(child: ChildProcess, start: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.split('\n').some((line) => line.startsWith(start))) done();
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
 * The shutdown recipe under traffic: creates flow, one is held in flight,
 * SIGTERM; once the server says it is closing (a line starting with
 * `closingLine`), a new connection is refused, the held create is answered
 * `200`, and the process exits 0. No create gets a 5xx. Answers a summary.
 */
export async function checkShutdownUnderTraffic(
  url: string,
  child: ChildProcess,
  closingLine: string,
): Promise<string> {
  const traffic = startCreates(url, 2);
  try {
    await traffic.answered(10, 30_000);
    const inFlight = shopperOf(3_000);
    const held = await heldCreate(url, inFlight.localAddress, inFlight.body);
    const closing = printedLine(child, closingLine, 10_000);
    const exited = once(child, 'exit');
    traffic.markSignalled();
    child.kill('SIGTERM');
    await closing;
    await traffic.stop();
    const late = shopperOf(3_001);
    assert.deepEqual(await createFrom(url, late.localAddress, late.body), { error: 'ECONNREFUSED' });
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
