/**
 * Webhooks (webhook-journal.ts) in the memory journal: the same rows and
 * rules as the SQL stores (sql-webhooks.ts, dialects/webhook-statements.ts),
 * kept in maps, on the memory journal's clock.
 */
import type { JournalClock } from './journal-url.js';
import {
  type ClaimedWebhookDelivery,
  claimedDeliveryOf,
  eventRecordOf,
  shortWebhookError,
  stateAfter,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
  type WebhookEventInput,
  type WebhookEventRecord,
  type WebhookEventRow,
  type WebhookJournal,
  type WebhookReplay,
} from './webhook-journal.js';

/** A delivery's key: its event and endpoint. */
const keyOf = (eventId: string, endpoint: string) => JSON.stringify([eventId, endpoint]);

/** The webhook rows of a memory journal. */
export class MemoryWebhooks implements WebhookJournal {
  readonly #events = new Map<string, WebhookEventRow>();
  readonly #deliveries = new Map<string, WebhookDeliveryRow>();
  readonly #attempts: WebhookAttemptRow[] = [];
  /** Disabled endpoints, by URL: when a `410` disabled them. */
  readonly #disabled = new Map<string, number>();
  readonly #clock: JournalClock;
  readonly #open: () => void;

  /** Rows on `clock`; `open` throws once the journal is closed. */
  constructor(clock: JournalClock, open: () => void) {
    this.#clock = clock;
    this.#open = open;
  }

  async recordWebhookEvents(events: readonly WebhookEventInput[]): Promise<void> {
    this.#open();
    const now = this.#clock.now();
    for (const { id, orderId, type, body, customer, endpoints } of events) {
      if (!this.#events.has(id))
        this.#events.set(id, { id, order_id: orderId, type, body, customer, created_at: now });
      for (const endpoint of endpoints) {
        const key = keyOf(id, endpoint);
        if (this.#deliveries.has(key)) continue;
        this.#deliveries.set(key, {
          ...{ event_id: id, endpoint, state: 'pending', attempts: 0, step: 0, next_attempt_at: now },
          ...{ lease_owner: null, lease_expires_at: null, delivered_at: null },
        });
      }
      this.#eraseWhenDone(id);
    }
  }

  async claimWebhookDeliveries(
    owner: string,
    { endpoint, limit, leaseMs }: { endpoint: string; limit: number; leaseMs: number },
  ): Promise<ClaimedWebhookDelivery[]> {
    this.#open();
    const now = this.#clock.now();
    if (this.#disabled.has(endpoint)) return [];
    const free = (row: WebhookDeliveryRow) =>
      row.lease_expires_at === null || Number(row.lease_expires_at) <= now;
    const due = [...this.#deliveries.values()]
      .filter(
        (row) => row.endpoint === endpoint && row.state === 'pending' && Number(row.next_attempt_at) <= now,
      )
      .filter(free)
      .sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at))
      .slice(0, limit);
    return due.map((row) => {
      Object.assign(row, { lease_owner: owner, lease_expires_at: now + Math.round(leaseMs) });
      return claimedDeliveryOf(row, this.#events.get(row.event_id) as WebhookEventRow);
    });
  }

  async recordWebhookAttempt(
    delivery: Pick<ClaimedWebhookDelivery, 'eventId' | 'endpoint' | 'attempts'>,
    owner: string,
    result: Parameters<WebhookJournal['recordWebhookAttempt']>[2],
  ): Promise<boolean> {
    this.#open();
    const now = this.#clock.now();
    const row = this.#deliveries.get(keyOf(delivery.eventId, delivery.endpoint));
    if (row?.lease_owner !== owner || row.state !== 'pending' || Number(row.attempts) !== delivery.attempts)
      // The holder's attempt is recorded already when its name stays on the row one attempt on.
      return row?.lease_owner === owner && Number(row.attempts) === delivery.attempts + 1;
    const { next } = result;
    const state = stateAfter(next);
    Object.assign(row, {
      attempts: Number(row.attempts) + 1,
      step: Number(row.step) + 1,
      state,
      next_attempt_at: next.state === 'pending' ? now + Math.round(next.retryInMs) : null,
      delivered_at: state === 'delivered' ? now : row.delivered_at,
      // The lease is let go; its holder's name stays, as in the SQL stores.
      lease_expires_at: null,
    });
    const attempt = delivery.attempts + 1;
    const recorded = this.#attempts.some(
      (a) => a.event_id === delivery.eventId && a.endpoint === delivery.endpoint && a.attempt === attempt,
    );
    if (!recorded) {
      this.#attempts.push({
        // Dated when it was sent, as in the SQL stores.
        ...{ event_id: delivery.eventId, endpoint: delivery.endpoint, attempt },
        at: now - Math.round(result.durationMs),
        ...{ status: result.status, duration_ms: Math.round(result.durationMs) },
        error: shortWebhookError(result.error),
      });
    }
    if (next.state === 'disabled') {
      this.#disabled.set(delivery.endpoint, now);
      for (const eventId of this.#events.keys()) this.#eraseWhenDone(eventId);
    } else if (state !== 'pending') this.#eraseWhenDone(delivery.eventId);
    return true;
  }

  async listWebhookEvents({
    limit,
    failed,
  }: {
    limit: number;
    failed?: boolean;
  }): Promise<WebhookEventRecord[]> {
    this.#open();
    return [...this.#events.values()]
      .filter((event) => !failed || this.#deliveriesOf(event.id).some((row) => this.#notThrough(row)))
      .sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : -1))
      .slice(0, limit)
      .map((event) =>
        eventRecordOf(
          event,
          this.#deliveriesOf(event.id).map((row) => ({
            ...row,
            disabled_at: this.#disabled.get(row.endpoint) ?? null,
          })),
          this.#attempts.filter((attempt) => attempt.event_id === event.id),
        ),
      );
  }

  async replayWebhooks(which: WebhookReplay): Promise<number> {
    this.#open();
    const chosen = [...this.#deliveries.values()].filter((row) =>
      'eventId' in which
        ? row.event_id === which.eventId
        : (which.endpoint === undefined || row.endpoint === which.endpoint) &&
          Number(this.#events.get(row.event_id)?.created_at) >= which.since,
    );
    const now = this.#clock.now();
    for (const row of chosen) {
      this.#disabled.delete(row.endpoint);
      Object.assign(row, { state: 'pending', step: 0, next_attempt_at: now, delivered_at: null });
    }
    return chosen.length;
  }

  /** Deletes the events of orders `orderExists` no longer finds, with their deliveries and attempts; how many events. */
  prune(orderExists: (orderId: string) => boolean): number {
    let pruned = 0;
    for (const [id, event] of this.#events) {
      if (orderExists(event.order_id)) continue;
      this.#events.delete(id);
      for (const [key, row] of this.#deliveries) if (row.event_id === id) this.#deliveries.delete(key);
      for (let index = this.#attempts.length - 1; index >= 0; index -= 1)
        if (this.#attempts[index]?.event_id === id) this.#attempts.splice(index, 1);
      pruned += 1;
    }
    return pruned;
  }

  /** Forgets everything (the journal closed). */
  clear(): void {
    this.#events.clear();
    this.#deliveries.clear();
    this.#attempts.length = 0;
    this.#disabled.clear();
  }

  /** The raw event rows, for tests that prove what is (and is not) stored. */
  rawEvents(): readonly Readonly<WebhookEventRow>[] {
    return [...this.#events.values()].map((row) => ({ ...row }));
  }

  #deliveriesOf(eventId: string): WebhookDeliveryRow[] {
    return [...this.#deliveries.values()].filter((row) => row.event_id === eventId);
  }

  /** Failed, or held for an endpoint a `410` disabled: what `list --failed` shows. */
  #notThrough(row: WebhookDeliveryRow): boolean {
    return row.state === 'failed' || (row.state === 'pending' && this.#disabled.has(row.endpoint));
  }

  /** Erases the event's customer once none of its deliveries will be attempted again (held for a disabled endpoint counts as done). */
  #eraseWhenDone(eventId: string): void {
    const event = this.#events.get(eventId);
    const waiting = (row: WebhookDeliveryRow) => row.state === 'pending' && !this.#disabled.has(row.endpoint);
    if (event && !this.#deliveriesOf(eventId).some(waiting)) event.customer = null;
  }
}
