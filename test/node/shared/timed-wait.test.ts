/**
 * The relay's one timed wait: whatever ends it first (its time on the
 * clock's timers, an answer, a failure, an early end) is what it ends with,
 * every later end is ignored, and a wait that ended leaves no timer and no
 * listener behind.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answeredWithin, endsWith, timedWait } from '../../../src/shared/answered-within.js';

/** Timers run by the test: `run()` fires every timer set and not cleared. */
function handTimers() {
  const pending = new Map<number, () => void>();
  let ids = 0;
  return {
    setTimeout(callback: () => void) {
      ids += 1;
      pending.set(ids, callback);
      return ids;
    },
    clearTimeout(id: unknown) {
      pending.delete(id as number);
    },
    get pending() {
      return pending.size;
    },
    run() {
      for (const [id, callback] of [...pending]) {
        pending.delete(id);
        callback();
      }
    },
  };
}

describe('timedWait', () => {
  it("ends with onTime's value once its time is up, and ignores the work's later answer", async () => {
    const timers = handTimers();
    let answer: (value: string) => void = () => undefined;
    const work = new Promise<string>((resolve) => {
      answer = resolve;
    });
    const waiting = timedWait(timers, 1_000, () => 'late', endsWith(work));
    timers.run();
    answer('answered');
    assert.equal(await waiting, 'late');
  });

  it("ends with the work's answer, mapped, and clears its timer", async () => {
    const timers = handTimers();
    const waiting = timedWait(
      timers,
      1_000,
      () => false,
      endsWith(Promise.resolve('x'), () => true),
    );
    assert.equal(await waiting, true);
    assert.equal(timers.pending, 0);
  });

  it("rejects with the work's failure, and with what onTime throws", async () => {
    const timers = handTimers();
    await assert.rejects(
      timedWait(timers, 1_000, () => 'late', endsWith(Promise.reject(new Error('refused')))),
      /refused/,
    );
    const late = timedWait(
      timers,
      1_000,
      () => {
        throw new Error('too late');
      },
      endsWith(new Promise(() => undefined)),
    );
    timers.run();
    await assert.rejects(late, /too late/);
  });

  it('ends early through end, stops listening once, and ends at once when told at once', async () => {
    const timers = handTimers();
    let stopped = 0;
    const listeners: (() => void)[] = [];
    const early = timedWait(
      timers,
      1_000,
      () => 'late',
      (end) => {
        listeners.push(() => end(() => 'early'));
        return () => {
          stopped += 1;
        };
      },
    );
    listeners[0]?.();
    listeners[0]?.();
    assert.equal(await early, 'early');
    assert.equal(stopped, 1);
    assert.equal(timers.pending, 0);

    const atOnce = timedWait(
      timers,
      1_000,
      () => 'late',
      (end) => {
        end(() => 'at once');
        return () => {
          stopped += 1;
        };
      },
    );
    assert.equal(await atOnce, 'at once');
    assert.equal(stopped, 2);
    assert.equal(timers.pending, 0);
  });

  it('answeredWithin rejects with late() past its time, and passes the answer on in time', async () => {
    const timers = handTimers();
    const silent = answeredWithin(timers, 1_500, new Promise(() => undefined), () => new Error('silent'));
    timers.run();
    await assert.rejects(silent, /silent/);
    assert.equal(await answeredWithin(timers, 1_500, Promise.resolve(7), () => new Error('silent')), 7);
  });
});
