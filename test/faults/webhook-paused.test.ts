/**
 * A relay process paused past its webhook lease (a process paused past its
 * lease never loses an event and repeats one only where the receiver's
 * answer was lost; it records nothing twice). Two relay processes share one
 * PostgreSQL journal, whose clock the leases are on. The first sends event X
 * and the receiver holds the request; it claims event Y and, between the
 * claim and the send, is held busy and stopped with SIGSTOP. The receiver
 * then answers X with 200, into the stopped process. The second process,
 * started only now, takes both deliveries once the leases have run out and
 * delivers them. The first is resumed with SIGCONT: its attempt at Y goes on
 * at once, before its timers run, and must see by the time elapsed that its
 * lease is gone (Y is sent once); its answer to X comes too late to be
 * recorded (X was sent twice, the first answer lost with the pause, and the
 * journal holds one attempt).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { linesOf, scratchFiles, servedSandbox, waitUntil } from '../fixtures/delivery-faults.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import {
  countsOf,
  deliveryStates,
  journalledEvents,
  startHeldReceiver,
  startWebhookChild,
} from '../fixtures/webhook-faults.js';

describe('a relay paused in the middle of webhook attempts', {
  skip: postgresSkipReason() ?? (process.platform === 'win32' && 'needs SIGSTOP'),
}, () => {
  it('past its lease: another process delivers, the resumed one sends and records nothing more', {
    timeout: 120_000,
  }, async (t) => {
    const cluster = await startPostgres();
    after(() => cluster.stop());
    const journalUrl = await cluster.createDatabase();
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder } = scratchFiles();
    const goFile = join(folder, 'go');
    const receiver = await startHeldReceiver();
    receiver.hold();
    const base = { journalUrl, baseUrl: url, receiverUrls: [receiver.url] };
    const paused = startWebhookChild({ ...base, orders: 1, stallOnClaim: { nth: 2, goFile } });

    assert.ok(await waitUntil(() => receiver.heldCount() === 1, 60_000), 'X sent, its answer held');
    const sentX = receiver.ids[0] as string;
    paused.process.stdin?.write('create 1\n');
    const stalled = await paused.waitFor('stalled ', 60_000);
    const sentY = stalled?.split(' ')[1] as string;
    assert.ok(sentY && sentY !== sentX, `Y claimed by the first process: ${paused.lines.join(' | ')}`);
    paused.process.kill('SIGSTOP');
    receiver.release(200);

    const other = startWebhookChild({ ...base, orders: 0 });
    const tookOver = await waitUntil(
      () => [sentX, sentY].every((id) => linesOf([other], 'delivered ').some((line) => line.startsWith(id))),
      90_000,
    );
    writeFileSync(goFile, '');
    paused.process.kill('SIGCONT');
    paused.process.stdin?.write('close\n');
    const resumedClosed = await paused.waitFor('closed', 30_000);
    other.process.stdin?.write('close\n');
    await other.waitFor('closed', 30_000);

    const states = deliveryStates(await journalledEvents(journalUrl));
    const received = countsOf(receiver.ids);
    t.diagnostic(
      `received X ${received.get(sentX)} times, Y ${received.get(sentY)} times; journal ${JSON.stringify([...states])}; ` +
        `the resumed process printed ${JSON.stringify(paused.lines.filter((line) => !line.startsWith('created')))}`,
    );
    assert.ok(tookOver, 'the other process delivered X and Y once the leases ran out');
    assert.ok(resumedClosed, 'the resumed process closed');
    assert.equal(received.get(sentY), 1, 'Y sent once: the resumed process found its lease gone');
    assert.equal(received.get(sentX), 2, 'X sent again, for the first answer was lost with the pause');
    assert.equal(states.get(sentX), 'delivered 200', 'X: one attempt recorded');
    assert.equal(states.get(sentY), 'delivered 200', 'Y: one attempt recorded');
    assert.deepEqual(linesOf([paused], 'delivered '), [], 'the resumed process recorded nothing');
  });
});
