/**
 * The one renewer of the journal's claims: a renewal every period after the
 * last one said whether to go on, none after `false` or `stop()`, and none
 * over one still unanswered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renewEvery } from '../../../src/server/journal/lease-renewer.js';

/** Timers run by the test: `run()` fires the timers set so far, not those they set. */
function handTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let ids = 0;
  return {
    setTimeout(callback: () => void, ms: number) {
      ids += 1;
      pending.set(ids, { callback, ms });
      return ids;
    },
    clearTimeout(id: unknown) {
      pending.delete(id as number);
    },
    periods: () => [...pending.values()].map((timer) => timer.ms),
    run() {
      for (const [id, timer] of [...pending]) {
        pending.delete(id);
        timer.callback();
      }
    },
  };
}

describe('renewEvery', () => {
  it('renews every period while renew says to go on, and stops on false', () => {
    const timers = handTimers();
    const answers = [true, true, false];
    let renewals = 0;
    renewEvery(timers, 10_000, () => {
      renewals += 1;
      return answers[renewals - 1] ?? true;
    });
    assert.deepEqual(timers.periods(), [10_000]);
    timers.run();
    timers.run();
    timers.run();
    assert.equal(renewals, 3);
    assert.deepEqual(timers.periods(), [], 'no renewal after false');
  });

  it('asks for the next renewal only once the last one answered', async () => {
    const timers = handTimers();
    let answer: (goOn: boolean) => void = () => undefined;
    renewEvery(
      timers,
      1_250,
      () =>
        new Promise<boolean>((resolve) => {
          answer = resolve;
        }),
    );
    timers.run();
    assert.deepEqual(timers.periods(), [], 'none while the renewal is unanswered');
    answer(true);
    await Promise.resolve();
    assert.deepEqual(timers.periods(), [1_250]);
  });

  it('renews no more once stopped, even when a renewal in flight answers', async () => {
    const timers = handTimers();
    let answer: (goOn: boolean) => void = () => undefined;
    const renewer = renewEvery(
      timers,
      1_250,
      () =>
        new Promise<boolean>((resolve) => {
          answer = resolve;
        }),
    );
    timers.run();
    renewer.stop();
    answer(true);
    await Promise.resolve();
    assert.deepEqual(timers.periods(), []);
  });
});
