/**
 * A create answers within 5 s however many times it waits on the journal:
 * with every journal call answering in 1.9 s (each well within a single
 * wait's limit), the intent's write and read and the record of the service's
 * answer share one allowance, started when the create arrives. Deterministic:
 * the relay's clock is the test's, moved by hand only while a journal call
 * is held on it. Real relay, real in-process sandbox, real `memory:` journal
 * behind the slow calls.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  type CheckoutRelay,
  type CheckoutRelayOptions,
  type Journal,
  openJournal,
} from '../../src/server/index.js';
import { CLIENT, createRequest, intent, priceCart, relayStack } from '../fixtures/relay.js';
import { ManualClock } from '../fixtures/session-harness.js';

const { sandbox, relayWith } = relayStack();

const JOURNAL_CALL_MS = 1_900;

/** Calls waiting on the clock, counted so the test moves the clock only while one waits. */
interface Held {
  count: number;
}

/** Waits `JOURNAL_CALL_MS` on `clock`, counted in `held` meanwhile. */
async function heldOn(clock: ManualClock, held: Held): Promise<void> {
  held.count += 1;
  await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), JOURNAL_CALL_MS));
  held.count -= 1;
}

/** `journal` whose every call answers `JOURNAL_CALL_MS` later on `clock`, counted in `held`. */
function slowJournal(journal: Journal, clock: ManualClock, held: Held): Journal {
  return new Proxy(journal, {
    get(target, name, receiver) {
      // One journal for the requests and the watcher alike.
      if (name === 'watcherConnections') return undefined;
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await heldOn(clock, held);
        return value.apply(target, args);
      };
    },
  });
}

/** A relay on `clock` whose journal answers every call `JOURNAL_CALL_MS` late; `options` are added. */
async function slowRelay(clock: ManualClock, held: Held, options: Partial<CheckoutRelayOptions> = {}) {
  const journal = slowJournal(await openJournal('memory:', { clock }), clock, held);
  const relay = relayWith({
    rateLimit: false,
    journal,
    onPaid: () => undefined,
    clock,
    watch: { ticks: false },
    ...options,
  });
  after(() => relay.close());
  return relay;
}

/** Closes `relay`, moving `clock` while a journal call it waits for is held: close() waits for the record left running. */
async function closedOnClock(relay: CheckoutRelay, clock: ManualClock, held: Held): Promise<void> {
  const closing = relay.close();
  while (held.count > 0) await clock.advance(50);
  await closing;
}

/** Runs `request` to its answer, moving `clock` 50 ms at a time while a journal call waits on it; the answer and its clock time. */
async function answeredOnClock(clock: ManualClock, held: Held, request: Promise<Response>) {
  const started = clock.now();
  let answer: { response: Response; atMs: number } | undefined;
  request.then((response) => {
    answer = { response, atMs: clock.now() - started };
  });
  for (let turns = 0; !answer && turns < 10_000; turns++) {
    if (held.count > 0) await clock.advance(50);
    else await new Promise((resolve) => setTimeout(resolve, 2));
  }
  if (!answer) throw new Error('The create never answered.');
  return answer;
}

describe('a journal whose every call answers in 1.9 s', () => {
  it('a create answers within 5 s on the relay’s clock, all its waits together', async () => {
    const clock = new ManualClock();
    const held: Held = { count: 0 };
    const relay = await slowRelay(clock, held);
    const before = sandbox.createdOrderCount;
    const { response, atMs } = await answeredOnClock(
      clock,
      held,
      Promise.resolve(relay.create(createRequest(intent()), CLIENT)),
    );
    assert.equal(response.status, 200, await response.clone().text());
    assert.ok(atMs <= 5_000, `answered at ${atMs} ms`);
    assert.equal(sandbox.createdOrderCount - before, 1);
    // The record of the order, left to run on its own, lands: close() waits for it.
    await closedOnClock(relay, clock, held);
  });
});

describe('a create whose allowance is spent before the service is called', () => {
  it('answers 503 to retry with the same key, within 5 s, and the service never hears of it', async () => {
    const clock = new ManualClock();
    const held: Held = { count: 0 };
    const relay = await slowRelay(clock, held, {
      // A catalogue that answers in 1.9 s too: the create's time runs from its arrival.
      priceCart: async (cart) => {
        await heldOn(clock, held);
        return priceCart(cart);
      },
    });
    const before = sandbox.createdOrderCount;
    const create = Promise.resolve(relay.create(createRequest(intent()), CLIENT));
    const { response, atMs } = await answeredOnClock(clock, held, create);
    assert.equal(response.status, 503, await response.clone().text());
    assert.ok(Number(response.headers.get('retry-after')) > 0);
    assert.ok(atMs <= 5_000, `answered at ${atMs} ms`);
    assert.equal(sandbox.createdOrderCount, before, 'no order without a recorded intent');
    await closedOnClock(relay, clock, held);
  });
});
