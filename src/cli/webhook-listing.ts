/**
 * `pay-checkout webhooks list` as an operator reads it: each event (id,
 * type, order, when), under it each endpoint's delivery (state, attempts,
 * when the next is due), and under that each attempt (time, status or
 * error, duration). Ids, URLs, statuses and times only: the journal's
 * listing holds no body, so no customer is ever printed.
 */
import type {
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEventRecord,
} from '../server/journal/webhook-journal.js';

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** One attempt: `#2 2026-…Z 503 in 120 ms`, or its error when no status came. */
function attemptLine(attempt: WebhookAttemptRecord): string {
  const answer = attempt.status === null ? 'no answer' : String(attempt.status);
  const error = attempt.error === null ? '' : ` (${attempt.error})`;
  return `      #${attempt.attempt} ${iso(attempt.at)} ${answer} in ${attempt.durationMs} ms${error}`;
}

/** One delivery: its endpoint, state and what comes next, then its attempts. */
function deliveryLines(delivery: WebhookDeliveryRecord): string[] {
  const notes = [
    delivery.deliveredAt === null ? '' : `at ${iso(delivery.deliveredAt)}`,
    delivery.nextAttemptAt === null || delivery.state !== 'pending'
      ? ''
      : `next ${iso(delivery.nextAttemptAt)}`,
    delivery.endpointDisabledAt === null
      ? ''
      : `endpoint disabled by 410 at ${iso(delivery.endpointDisabledAt)}`,
  ].filter(Boolean);
  const head = `    ${delivery.endpoint} ${delivery.state}${notes.length ? `, ${notes.join(', ')}` : ''}`;
  return [head, ...delivery.attempts.map(attemptLine)];
}

/** The lines `list` prints for `events` (newest first, as the journal gives them). */
export function webhookListingLines(events: readonly WebhookEventRecord[], failedOnly: boolean): string[] {
  if (events.length === 0) return [failedOnly ? 'No failed webhook deliveries.' : 'No webhook events.'];
  return events.flatMap((event) => [
    `${event.id} ${event.type} order ${event.orderId} at ${iso(event.createdAt)}`,
    ...event.deliveries.flatMap(deliveryLines),
  ]);
}
