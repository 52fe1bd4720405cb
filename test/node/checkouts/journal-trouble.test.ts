/**
 * A create for a server-created checkout waits for the journal's read of the
 * checkout within the create's one allowance: a journal that does not answer
 * gets the `503` to retry with the same key, one that fails the `500` of a
 * journal that cannot be read (`journal_unavailable`), and the service hears
 * of neither. Deterministic: the relay's clock is the test's, moved by hand
 * while the read is held. Real relay, real in-process sandbox, real `memory:`
 * journal behind the held reads.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type CheckoutRelayEvent, type Journal, openJournal } from '../../../src/server/index.js';
import { CLIENT, createRequest, errorOf, relayStack } from '../../fixtures/relay.js';
import { payingFor, toteCheckout } from '../../fixtures/server-checkouts.js';
import { ManualClock } from '../../fixtures/session-harness.js';

const { sandbox, relayWith } = relayStack();

/** What the checkout reads do: answer, hang until `release()`, or fail. */
interface Trouble {
  now?: 'hang' | 'fail';
  release(): void;
}

/** `journal` whose checkout reads do what `trouble` says. */
function troubledJournal(journal: Journal, trouble: Trouble, released: Promise<void>): Journal {
  return new Proxy(journal, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      // Bound to the journal itself: a store's private fields are its own, not the proxy's.
      if (name !== 'readCheckout') return value.bind(target);
      return (...args: unknown[]) => {
        if (trouble.now === 'hang') return released.then(() => value.apply(target, args));
        if (trouble.now === 'fail') return Promise.reject(new Error('disk I/O error'));
        return value.apply(target, args);
      };
    },
  });
}

async function troubledShop() {
  const clock = new ManualClock();
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const trouble: Trouble = { release: () => release() };
  const events: CheckoutRelayEvent[] = [];
  const relay = relayWith({
    rateLimit: false,
    journal: troubledJournal(await openJournal('memory:', { clock }), trouble, released),
    onPaid: () => undefined,
    onEvent: (event) => {
      events.push(event);
    },
    clock,
    watch: { ticks: false },
  });
  after(async () => {
    // The held read still runs (close() waits for it): it answers now.
    trouble.release();
    await relay.close();
  });
  const checkout = await relay.checkouts.create(toteCheckout({ origin: null }));
  return { clock, trouble, events, relay, checkout };
}

describe('a create for a server-created checkout, while the journal is in trouble', () => {
  it('that does not answer: 503 with Retry-After once the create’s allowance is spent, the service not called', async () => {
    const { clock, trouble, relay, checkout } = await troubledShop();
    trouble.now = 'hang';
    const before = sandbox.createdOrderCount;
    let answer: Response | undefined;
    void Promise.resolve(relay.create(createRequest(payingFor(checkout.clientSecret)), CLIENT)).then(
      (response) => {
        answer = response;
      },
    );
    for (let step = 0; step < 200 && answer === undefined; step++) await clock.advance(50);
    assert.ok(answer, 'answered');
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.get('retry-after'), '1');
    assert.equal((await errorOf(answer)).code, 'service_unavailable');
    assert.equal(sandbox.createdOrderCount, before);
  });

  it('that fails: 500, reported as journal_unavailable, the service not called', async () => {
    const { trouble, events, relay, checkout } = await troubledShop();
    trouble.now = 'fail';
    const before = sandbox.createdOrderCount;
    const answer = await relay.create(createRequest(payingFor(checkout.clientSecret)), CLIENT);
    assert.equal(answer.status, 500);
    assert.ok(events.some((event) => event.type === 'journal_unavailable'));
    assert.equal(sandbox.createdOrderCount, before);
  });
});
