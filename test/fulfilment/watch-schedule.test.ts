/**
 * The watcher's rhythm and its options, as pure functions: every
 * 2–5 s while the payer can approve, backing off after, bounded in total;
 * callbacks and outages back off too, each within a cap.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  deliveryRetryInMs,
  isPastBound,
  MAX_BACKOFF_CHECK_MS,
  MAX_DELIVERY_BACKOFF_MS,
  MAX_SERVICE_BACKOFF_MS,
  nextCheckAt,
  nextCheckInPass,
  servicePauseMs,
} from '../../src/server/fulfilment/watch-schedule.js';
import { resolveFulfilmentSettings } from '../../src/server/fulfilment/watch-settings.js';
import { openJournal } from '../../src/server/index.js';
import { systemClock } from '../../src/shared/clock.js';

const timing = { intervalMs: 3_000, approvalWindowMs: 6 * 60_000, maxWatchMs: 24 * 3_600_000 };
const T0 = 1_700_000_000_000;

describe('the watch schedule', () => {
  it('looks every interval while the payer can approve', () => {
    for (const age of [0, 1_000, 60_000, 6 * 60_000 - 1]) {
      assert.equal(nextCheckAt(timing, T0, T0 + age), T0 + age + 3_000);
    }
  });

  it('backs off after the approval window: half the age, at most an hour apart', () => {
    assert.equal(nextCheckAt(timing, T0, T0 + 6 * 60_000) - (T0 + 6 * 60_000), 3 * 60_000);
    assert.equal(nextCheckAt(timing, T0, T0 + 3_600_000) - (T0 + 3_600_000), MAX_BACKOFF_CHECK_MS / 2);
    assert.equal(MAX_BACKOFF_CHECK_MS, 3_600_000);
    assert.equal(nextCheckAt(timing, T0, T0 + 5 * 3_600_000) - (T0 + 5 * 3_600_000), MAX_BACKOFF_CHECK_MS);
  });

  it('costs a never-settling order 149 lookups over 24 hours, 119 of them while the payer can approve', () => {
    // Passes every interval, as the watcher runs them; each lookup schedules the next on the pass's rhythm.
    let due = T0 + timing.intervalMs;
    const lookups: number[] = [];
    for (let pass = T0; !isPastBound(timing, T0, pass); pass += timing.intervalMs) {
      if (pass < due) continue;
      lookups.push(pass);
      due = nextCheckInPass(timing, T0, pass, pass);
    }
    const inWindow = lookups.filter((at) => at - T0 < timing.approvalWindowMs).length;
    assert.deepEqual([inWindow, lookups.length], [119, 149]);
  });

  it('never schedules past the bound, and gives up at it', () => {
    const late = T0 + timing.maxWatchMs - 1_000;
    assert.equal(nextCheckAt(timing, T0, late), T0 + timing.maxWatchMs);
    assert.equal(isPastBound(timing, T0, T0 + timing.maxWatchMs - 1), false);
    assert.equal(isPastBound(timing, T0, T0 + timing.maxWatchMs), true);
  });

  it('retries a callback after 2 s, 4 s, 8 s…, at most 10 minutes', () => {
    assert.deepEqual(
      [0, 1, 2].map((failures) => deliveryRetryInMs(failures)),
      [2_000, 4_000, 8_000],
    );
    assert.equal(deliveryRetryInMs(50), MAX_DELIVERY_BACKOFF_MS);
  });

  it('pauses for the interval, doubling, at most a minute, never under Retry-After', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 40].map((failures) => servicePauseMs(3_000, failures)),
      [3_000, 6_000, 12_000, 24_000, 48_000, MAX_SERVICE_BACKOFF_MS, MAX_SERVICE_BACKOFF_MS],
    );
    assert.equal(servicePauseMs(3_000, 1, 20_000), 20_000);
  });
});

describe('the watch options', () => {
  it('clamps the interval to the spec’s 2–5 s and takes the defaults', async () => {
    const journal = await openJournal('memory:');
    const onPaid = () => undefined;
    const of = (intervalMs?: number) =>
      resolveFulfilmentSettings({ journal, onPaid, watch: { intervalMs } }, systemClock, 'test')?.intervalMs;
    assert.deepEqual([of(), of(500), of(4_000), of(60_000)], [3_000, 2_000, 4_000, 5_000]);
    const settings = resolveFulfilmentSettings({ journal, onPaid }, systemClock, 'test');
    assert.equal(settings?.approvalWindowMs, 6 * 60_000);
    assert.equal(settings?.maxWatchMs, 24 * 3_600_000);
    assert.equal(settings?.retentionMs, 30 * 24 * 3_600_000);
    assert.match(settings?.owner ?? '', /^relay-[0-9a-f-]{36}$/);
    assert.throws(
      () => resolveFulfilmentSettings({ journal, onPaid, watch: { maxWatchMs: -1 } }, systemClock, 'test'),
      /maxWatchMs must be a positive number/,
    );
    assert.throws(
      () => resolveFulfilmentSettings({ journal: {} as never, onPaid }, systemClock, 'test'),
      /openJournal/,
    );
    assert.equal(settings?.callbackTimeoutMs, 30_000);
    const timed = resolveFulfilmentSettings(
      { journal, onPaid, watch: { callbackTimeoutMs: 5_000 } },
      systemClock,
      'test',
    );
    assert.equal(timed?.callbackTimeoutMs, 5_000);
    for (const callbackTimeoutMs of [0, -1, Number.NaN, '30000' as unknown as number]) {
      assert.throws(
        () =>
          resolveFulfilmentSettings({ journal, onPaid, watch: { callbackTimeoutMs } }, systemClock, 'test'),
        (error: unknown) =>
          error instanceof TypeError &&
          /watch\.callbackTimeoutMs must be a positive number of milliseconds/.test(error.message),
      );
    }
  });
});
