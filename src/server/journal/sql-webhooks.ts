/**
 * Webhooks (webhook-journal.ts) on the SQL stores: events and deliveries
 * inserted once whatever the retries, deliveries claimed as orders are (one
 * statement, `FOR UPDATE SKIP LOCKED` in PostgreSQL, BEGIN IMMEDIATE in
 * SQLite), and every write of an attempt guarded by the lease.
 */
import type { JournalStatementName } from './dialects/dialect.js';
import {
  type ClaimedWebhookDelivery,
  claimedDeliveryOf,
  eventRecordOf,
  shortWebhookError,
  stateAfter,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
  type WebhookEventInput,
  type WebhookEventRow,
  type WebhookJournal,
  type WebhookReplay,
} from './webhook-journal.js';

/** A value bound to a statement parameter. */
type SqlValue = string | number | null;

/** How the journal runs its statements by name (sql-journal.ts), binding its time where they read it. */
export interface WebhookRunner {
  execute(name: JournalStatementName, params: SqlValue[]): Promise<number>;
  query(name: JournalStatementName, params: SqlValue[]): Promise<readonly object[]>;
  claim(name: JournalStatementName, params: SqlValue[]): Promise<readonly object[]>;
  executeIfChanged(
    guard: readonly [JournalStatementName, SqlValue[]],
    rest: readonly (readonly [JournalStatementName, SqlValue[]])[],
  ): Promise<number[]>;
}

/** A duration as every store binds it: whole milliseconds. */
const ms = (duration: number) => Math.round(duration);

/** The webhook steps of a SQL journal; `erased` is told when a customer was dropped. */
export function sqlWebhookJournal(run: WebhookRunner, erased: () => void): WebhookJournal {
  const eventOf = async (id: string) =>
    (await run.query('webhookEventById', [id]))[0] as WebhookEventRow | undefined;
  // The holder's attempt is in the journal already: an earlier record whose answer was lost.
  const recordedBefore = async (
    { eventId, endpoint, attempts }: Pick<ClaimedWebhookDelivery, 'eventId' | 'endpoint' | 'attempts'>,
    owner: string,
  ) => {
    const rows = (await run.query('webhookDeliveriesOf', [eventId])) as WebhookDeliveryRow[];
    const row = rows.find((delivery) => delivery.endpoint === endpoint);
    return row?.lease_owner === owner && Number(row.attempts) === attempts + 1;
  };
  return {
    async recordWebhookEvents(events: readonly WebhookEventInput[]) {
      for (const event of events) {
        const { id, orderId, type, body, customer } = event;
        await run.execute('insertWebhookEvent', [id, orderId, type, body, customer]);
        for (const endpoint of event.endpoints) await run.execute('insertWebhookDelivery', [id, endpoint]);
        // Sent to disabled endpoints only, it is held for a replay that will not carry the customer.
        if ((await run.execute('eraseWebhookCustomer', [id])) > 0) erased();
      }
    },
    async claimWebhookDeliveries(owner, { endpoint, limit, leaseMs }) {
      const rows = (await run.claim('claimWebhookDeliveries', [
        owner,
        ms(leaseMs),
        limit,
        endpoint,
      ])) as WebhookDeliveryRow[];
      const claimed: ClaimedWebhookDelivery[] = [];
      for (const row of rows) {
        const event = await eventOf(row.event_id);
        if (event) claimed.push(claimedDeliveryOf(row, event));
      }
      return claimed;
    },
    async recordWebhookAttempt(delivery, owner, result) {
      const { eventId, endpoint, attempts } = delivery;
      const { next } = result;
      const state = stateAfter(next);
      const retryInMs = next.state === 'pending' ? ms(next.retryInMs) : 0;
      const { status, durationMs, error } = result;
      const attempt = [eventId, endpoint, attempts + 1, status, ms(durationMs), shortWebhookError(error)];
      const then: [JournalStatementName, SqlValue[]][] = [['insertWebhookAttempt', attempt]];
      if (next.state === 'disabled') then.push(['disableWebhookEndpoint', [endpoint]]);
      if (next.state === 'disabled') then.push(['eraseHeldWebhookCustomers', []]);
      else if (state !== 'pending') then.push(['eraseWebhookCustomer', [eventId]]);
      const counts = await run.executeIfChanged(
        ['webhookAttempted', [eventId, endpoint, state, retryInMs, owner, attempts]],
        then,
      );
      if (counts[0] === 0) return recordedBefore(delivery, owner);
      if (state !== 'pending' && (counts.at(-1) ?? 0) > 0) erased();
      return true;
    },
    async listWebhookEvents({ limit, failed }) {
      const events = (
        failed
          ? await run.query('webhookEventsFailed', [limit])
          : await run.query('webhookEventsRecent', [limit])
      ) as WebhookEventRow[];
      const records = [];
      for (const event of events) {
        const deliveries = (await run.query('webhookDeliveriesOf', [event.id])) as WebhookDeliveryRow[];
        const attempts = (await run.query('webhookAttemptsOf', [event.id])) as WebhookAttemptRow[];
        records.push(eventRecordOf(event, deliveries, attempts));
      }
      return records;
    },
    async replayWebhooks(which: WebhookReplay) {
      const params: SqlValue[] =
        'eventId' in which ? [which.eventId, 0, ''] : ['', Math.floor(which.since), which.endpoint ?? ''];
      await run.execute('enableReplayedEndpoints', params);
      return run.execute('replayWebhookDeliveries', params);
    },
  };
}

/** Deletes the webhook rows of orders the journal pruned; resolves with how many events went. */
export async function pruneWebhooks(run: Pick<WebhookRunner, 'execute'>): Promise<number> {
  await run.execute('pruneWebhookAttempts', []);
  await run.execute('pruneWebhookDeliveries', []);
  return run.execute('pruneWebhookEvents', []);
}
