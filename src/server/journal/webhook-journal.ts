/**
 * What the journal keeps of webhooks: one event per settled order and
 * outcome (its body as sent, the customer apart), its delivery to each
 * endpoint (leased like an order while an attempt is in flight, so one
 * attempt per event and endpoint runs across a fleet), every attempt (time,
 * status, duration, a short error), and the endpoints disabled by a `410`.
 * Every time is the journal's own; callers give durations, or an instant an
 * operator typed (`replay --since`). The stores share the row mapping here.
 */

/** Where one event's delivery to one endpoint stands. */
export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

/** One event to journal, with the endpoints it goes to. */
export interface WebhookEventInput {
  /** `msg_` and 24 base64url characters, the same however often the event is journalled. */
  readonly id: string;
  /** The order it tells of: the event is pruned with it. */
  readonly orderId: string;
  /** `order.paid`, `order.failed`, `order.expired`. */
  readonly type: string;
  /** The body as sent, its `data.customer` `null`: the customer is kept apart, and erased first. */
  readonly body: string;
  /** The customer as JSON (`{ "name", "phone_number" }`), or `null`. */
  readonly customer: string | null;
  /** The endpoints (URLs) subscribed to it; each gets its own delivery. */
  readonly endpoints: readonly string[];
}

/** A delivery leased to one process for one attempt. */
export interface ClaimedWebhookDelivery {
  readonly eventId: string;
  readonly endpoint: string;
  /** Attempts made before this one, ever (this one is `attempts + 1`). */
  readonly attempts: number;
  /** Attempts since the schedule began (a replay restarts it). */
  readonly step: number;
  /** The body as journalled, and its customer while it is kept. */
  readonly body: string;
  readonly customer: string | null;
}

/** What one attempt gave, as the journal keeps it: never a header, a body or a secret. */
export interface WebhookAttemptResult {
  /** The HTTP status, or `null` when no answer came (refused, timed out, unreachable). */
  readonly status: number | null;
  readonly durationMs: number;
  /** A short description of what went wrong, or `null`. */
  readonly error: string | null;
}

/** What comes after an attempt: delivered, another attempt in `retryInMs`, failed for good, or the endpoint disabled (`410`). */
export type WebhookNext =
  | { readonly state: 'delivered' }
  | { readonly state: 'pending'; readonly retryInMs: number }
  | { readonly state: 'failed' }
  | { readonly state: 'disabled' };

/** One attempt as `relay.webhooks.list` shows it. */
export interface WebhookAttemptRecord extends WebhookAttemptResult {
  /** 1 for the first attempt to this endpoint, counting across replays. */
  readonly attempt: number;
  /** When it was made (epoch ms, the journal's clock). */
  readonly at: number;
}

/** One event's delivery to one endpoint, with its attempts. */
export interface WebhookDeliveryRecord {
  readonly endpoint: string;
  readonly state: WebhookDeliveryState;
  readonly attempts: readonly WebhookAttemptRecord[];
  /** When the next attempt is due (epoch ms), or `null` once it ended. */
  readonly nextAttemptAt: number | null;
  readonly deliveredAt: number | null;
  /** When the endpoint was disabled by a `410`, or `null` while it is enabled. */
  readonly endpointDisabledAt: number | null;
}

/** One event as `relay.webhooks.list` shows it: no body, so no customer. */
export interface WebhookEventRecord {
  readonly id: string;
  readonly orderId: string;
  readonly type: string;
  readonly createdAt: number;
  readonly deliveries: readonly WebhookDeliveryRecord[];
}

/** Which events a replay sends again: one by id, or every one since an instant (to one endpoint, or all). */
export type WebhookReplay =
  | { readonly eventId: string }
  | { readonly since: number; readonly endpoint?: string };

/** The journal's part in webhooks. */
export interface WebhookJournal {
  /** Journals each event and its deliveries, due now; an event or delivery journalled already is left as it is. */
  recordWebhookEvents(events: readonly WebhookEventInput[]): Promise<void>;
  /** Leases up to `limit` due deliveries to `endpoint` (none while it is disabled) to `owner` for `leaseMs`. */
  claimWebhookDeliveries(
    owner: string,
    options: { endpoint: string; limit: number; leaseMs: number },
  ): Promise<ClaimedWebhookDelivery[]>;
  /**
   * Records an attempt by the lease holder and what comes next, releasing the
   * lease; once no delivery of the event is pending, its customer is erased.
   * All of it is written or none. `false` when `owner` no longer held the
   * delivery (nothing is written); `true` again for the same attempt recorded
   * twice (an earlier record whose answer was lost), written once.
   */
  recordWebhookAttempt(
    delivery: Pick<ClaimedWebhookDelivery, 'eventId' | 'endpoint' | 'attempts'>,
    owner: string,
    result: WebhookAttemptResult & { readonly next: WebhookNext },
  ): Promise<boolean>;
  /** The newest events first, at most `limit`, with their deliveries and attempts; `failed`: only those with a delivery that failed or waits for a disabled endpoint. */
  listWebhookEvents(options: { limit: number; failed?: boolean }): Promise<WebhookEventRecord[]>;
  /**
   * Makes the chosen deliveries due now, from the start of the schedule, and
   * enables their endpoints again; resolves with how many deliveries.
   */
  replayWebhooks(which: WebhookReplay): Promise<number>;
}

/** A time or count column as a driver may hand it back (PostgreSQL's `bigint` arrives as a string). */
type StoredInteger = number | string | bigint;

/** A row of `pay_checkout_webhook_events`. */
export interface WebhookEventRow {
  id: string;
  order_id: string;
  type: string;
  body: string;
  customer: string | null;
  created_at: StoredInteger;
}

/** A row of `pay_checkout_webhook_deliveries` (with its endpoint's `disabled_at` where joined). */
export interface WebhookDeliveryRow {
  event_id: string;
  endpoint: string;
  state: string;
  attempts: StoredInteger;
  step: StoredInteger;
  next_attempt_at: StoredInteger | null;
  lease_owner: string | null;
  lease_expires_at: StoredInteger | null;
  delivered_at: StoredInteger | null;
  disabled_at?: StoredInteger | null;
}

/** A row of `pay_checkout_webhook_attempts`. */
export interface WebhookAttemptRow {
  event_id: string;
  endpoint: string;
  attempt: StoredInteger;
  at: StoredInteger;
  status: StoredInteger | null;
  duration_ms: StoredInteger;
  error: string | null;
}

/** The longest attempt error kept. */
export const WEBHOOK_ERROR_MAX_LENGTH = 200;

const numberOrNull = (value: StoredInteger | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);

/** A claimed delivery from its row and its event's. */
export function claimedDeliveryOf(row: WebhookDeliveryRow, event: WebhookEventRow): ClaimedWebhookDelivery {
  return {
    eventId: row.event_id,
    endpoint: row.endpoint,
    attempts: Number(row.attempts),
    step: Number(row.step),
    body: event.body,
    customer: event.customer,
  };
}

/** An event for `list`, from its rows. */
export function eventRecordOf(
  event: WebhookEventRow,
  deliveries: readonly WebhookDeliveryRow[],
  attempts: readonly WebhookAttemptRow[],
): WebhookEventRecord {
  return {
    id: event.id,
    orderId: event.order_id,
    type: event.type,
    createdAt: Number(event.created_at),
    deliveries: deliveries
      .map((row) => ({
        endpoint: row.endpoint,
        state: row.state as WebhookDeliveryState,
        attempts: attempts
          .filter((attempt) => attempt.endpoint === row.endpoint)
          .map((attempt) => ({
            attempt: Number(attempt.attempt),
            at: Number(attempt.at),
            status: numberOrNull(attempt.status),
            durationMs: Number(attempt.duration_ms),
            error: attempt.error,
          }))
          .sort((a, b) => a.attempt - b.attempt),
        nextAttemptAt: numberOrNull(row.next_attempt_at),
        deliveredAt: numberOrNull(row.delivered_at),
        endpointDisabledAt: numberOrNull(row.disabled_at),
      }))
      .sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0)),
  };
}

/** The state a delivery is left in after an attempt: a disabled endpoint's delivery stops as failed. */
export function stateAfter(next: WebhookNext): WebhookDeliveryState {
  return next.state === 'disabled' ? 'failed' : next.state;
}

/** An attempt's error, cut short: enough to tell errors apart, too short to hold a record. */
export function shortWebhookError(error: string | null): string | null {
  return error === null ? null : error.slice(0, WEBHOOK_ERROR_MAX_LENGTH);
}
