/**
 * The relay's one `clock`: the rate limits read its time, and the watcher
 * schedules its passes on its timers. The options it replaced are refused at
 * startup with a TypeError that names it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Clock, openJournal } from '../../../src/server/index.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { CLIENT, createRequest, intent, relayStack } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';

const { relayWith } = relayStack();

/** A clock the test moves and whose timers it runs by hand; `scheduled(ms)` resolves at the next `setTimeout` for `ms`. */
function handClock(start: number) {
  const timers = new Map<number, { ms: number; callback: () => void }>();
  let ids = 0;
  let onSchedule: ((ms: number) => void) | undefined;
  const state = { time: start };
  const clock: Clock = {
    now: () => state.time,
    setTimeout(callback, ms) {
      ids += 1;
      timers.set(ids, { ms, callback });
      onSchedule?.(ms);
      return ids;
    },
    clearTimeout(timer) {
      timers.delete(timer as number);
    },
  };
  // Deliveries set timers of their own on the clock (a lease's length): a pass is told by its interval.
  const scheduled = (ms: number) =>
    new Promise<void>((resolve) => {
      onSchedule = (set) => {
        if (set === ms) resolve();
      };
    });
  return { clock, state, timers, scheduled };
}

describe('the relay’s clock', () => {
  it('moves the rate-limit windows: a jump of clock.now frees a number’s prompts and refills a bucket', async () => {
    let now = 2_000_000_000;
    const relay = relayWith({
      clock: clockReading(() => now),
      rateLimit: {
        create: { capacity: 2, refillPerMinute: 1 },
        promptsPerNumber: { limit: 1, windowMinutes: 10 },
      },
    });
    const create = () => relay.create(createRequest(intent(customerPayingFrom('0209876547'))), CLIENT);
    assert.equal((await create()).status, 200);
    const prompted = await create();
    assert.equal(prompted.status, 429, 'the number had its one prompt');
    assert.equal(prompted.headers.get('retry-after'), '600');
    assert.equal((await create()).status, 429, 'and the client is out of tokens');
    now += 10 * 60_000;
    assert.equal((await create()).status, 200, 'ten minutes later on the clock, both have room again');
  });

  it('schedules the watcher’s passes on its timers, and close() clears them', async () => {
    const { clock, state, timers, scheduled } = handClock(3_000_000_000);
    const journal = await openJournal('memory:');
    const first = scheduled(0);
    const relay = relayWith({ journal, onPaid: () => undefined, clock, watch: { intervalMs: 4_000 } });
    await first;
    const [[id, pass] = []] = [...timers];
    assert.equal(pass?.ms, 0, 'the first pass is due at once');
    timers.delete(id as number);
    const next = scheduled(4_000);
    state.time += 1_000;
    pass?.callback();
    await next;
    assert.deepEqual(
      [...timers.values()].map((timer) => timer.ms),
      [4_000],
      'the next pass is one interval after the start of this one',
    );
    await relay.close();
    assert.equal(timers.size, 0, 'close() cleared the pending pass');
  });

  describe('the options it replaced', () => {
    for (const [name, options] of [
      ['rateLimit.now', { rateLimit: { now: () => 0 } }],
      ['watch.now', { watch: { now: () => 0 } }],
      ['watch.timers', { watch: { timers: false } }],
    ] as const) {
      it(`refuses ${name} with a TypeError naming clock`, () => {
        assert.throws(
          () => relayWith(options as never),
          (error: unknown) =>
            error instanceof TypeError && error.message.includes(name) && /\bclock\b/.test(error.message),
        );
      });
    }

    it('refuses a clock without timers of its own', () => {
      assert.throws(
        () => relayWith({ clock: { now: () => 0 } as never }),
        (error: unknown) => error instanceof TypeError && /\bclock must be a Clock\b/.test(error.message),
      );
    });
  });
});
