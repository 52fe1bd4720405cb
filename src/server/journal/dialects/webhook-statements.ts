/**
 * The webhook statements both dialects write alike but for their
 * placeholders (webhook-journal.ts says what each keeps); each dialect writes
 * its claim of due deliveries itself, with `webhookClaim` below.
 */
import { FREE_LEASE, NOW, TABLE } from './sql-parts.js';

/** The events: one per settled order and outcome. */
export const WEBHOOK_EVENTS = 'pay_checkout_webhook_events';
/** One delivery per event and endpoint. */
export const WEBHOOK_DELIVERIES = 'pay_checkout_webhook_deliveries';
/** Every attempt of a delivery. */
export const WEBHOOK_ATTEMPTS = 'pay_checkout_webhook_attempts';
/** The endpoints a `410` disabled. */
export const WEBHOOK_ENDPOINTS = 'pay_checkout_webhook_endpoints';

/** A dialect's parameter `n`, numbered from 1. */
type Placeholder = (n: number) => string;

/**
 * The claim: lease up to p(3) due deliveries to endpoint p(4), while it is
 * enabled, to owner p(1) for p(2) ms; `lock` is what the dialect adds to the
 * inner SELECT (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
 */
export function webhookClaim(p: Placeholder, lock = ''): string {
  return `UPDATE ${WEBHOOK_DELIVERIES} SET lease_owner = ${p(1)}, lease_expires_at = ${NOW} + ${p(2)}
    WHERE (event_id, endpoint) IN (
      SELECT event_id, endpoint FROM ${WEBHOOK_DELIVERIES}
      WHERE endpoint = ${p(4)} AND state = 'pending' AND next_attempt_at <= ${NOW} AND ${FREE_LEASE}
      AND NOT EXISTS (SELECT 1 FROM ${WEBHOOK_ENDPOINTS} WHERE url = ${p(4)} AND disabled_at IS NOT NULL)
      ORDER BY next_attempt_at LIMIT ${p(3)} ${lock}
    ) RETURNING event_id, endpoint, attempts, step`;
}

/** The chosen deliveries of a replay: of event p(1) when it is not '', else of events since p(2) to endpoint p(3) or all ('' ). */
function replayed(p: Placeholder): string {
  return `((${p(1)} <> '' AND event_id = ${p(1)}) OR (${p(1)} = '' AND (${p(3)} = '' OR endpoint = ${p(3)})
    AND event_id IN (SELECT id FROM ${WEBHOOK_EVENTS} WHERE created_at >= ${p(2)})))`;
}

/** Events none of whose deliveries will be attempted again: each delivered, failed, or held for an endpoint `410` disabled. */
const DONE = `NOT EXISTS (SELECT 1 FROM ${WEBHOOK_DELIVERIES} d WHERE d.event_id = ${WEBHOOK_EVENTS}.id
  AND d.state = 'pending' AND NOT EXISTS
  (SELECT 1 FROM ${WEBHOOK_ENDPOINTS} e WHERE e.url = d.endpoint AND e.disabled_at IS NOT NULL))`;

/** Events whose order the journal no longer holds: pruned with it. */
const ORPHANED = `SELECT id FROM ${WEBHOOK_EVENTS} WHERE NOT EXISTS
  (SELECT 1 FROM ${TABLE} WHERE ${TABLE}.order_id = ${WEBHOOK_EVENTS}.order_id)`;

/** Every webhook statement but the claim. */
export function webhookStatements(p: Placeholder) {
  return {
    insertWebhookEvent: `INSERT INTO ${WEBHOOK_EVENTS} (id, order_id, type, body, customer, created_at)
      VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${NOW}) ON CONFLICT DO NOTHING`,
    insertWebhookDelivery: `INSERT INTO ${WEBHOOK_DELIVERIES} (event_id, endpoint, state, attempts, step, next_attempt_at)
      VALUES (${p(1)}, ${p(2)}, 'pending', 0, 0, ${NOW}) ON CONFLICT DO NOTHING`,
    webhookEventById: `SELECT * FROM ${WEBHOOK_EVENTS} WHERE id = ${p(1)}`,
    // Parameter 3 is the state after it, 4 the wait before the next attempt (pending only), 6 the
    // attempts the holder claimed it with: the same attempt recorded twice changes nothing the second
    // time. The lease is let go but its holder's name stays, so a holder whose record's answer was
    // lost can tell its own attempt from another's (recordWebhookAttempt).
    webhookAttempted: `UPDATE ${WEBHOOK_DELIVERIES} SET attempts = attempts + 1, step = step + 1, state = ${p(3)},
      next_attempt_at = CASE WHEN ${p(3)} = 'pending' THEN ${NOW} + ${p(4)} ELSE NULL END,
      delivered_at = CASE WHEN ${p(3)} = 'delivered' THEN ${NOW} ELSE delivered_at END, lease_expires_at = NULL
      WHERE event_id = ${p(1)} AND endpoint = ${p(2)} AND lease_owner = ${p(5)} AND state = 'pending'
      AND attempts = ${p(6)}`,
    // An attempt is dated when it was sent: it is recorded once its answer came, `duration_ms` later.
    insertWebhookAttempt: `INSERT INTO ${WEBHOOK_ATTEMPTS} (event_id, endpoint, attempt, at, status, duration_ms, error)
      VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${NOW} - ${p(5)}, ${p(4)}, ${p(5)}, ${p(6)}) ON CONFLICT DO NOTHING`,
    disableWebhookEndpoint: `INSERT INTO ${WEBHOOK_ENDPOINTS} (url, disabled_at) VALUES (${p(1)}, ${NOW})
      ON CONFLICT (url) DO UPDATE SET disabled_at = excluded.disabled_at`,
    // Once no delivery of the event will be attempted again, nothing needs its customer.
    eraseWebhookCustomer: `UPDATE ${WEBHOOK_EVENTS} SET customer = NULL
      WHERE id = ${p(1)} AND customer IS NOT NULL AND ${DONE}`,
    // When an endpoint is disabled, of every event left waiting only for it.
    eraseHeldWebhookCustomers: `UPDATE ${WEBHOOK_EVENTS} SET customer = NULL WHERE customer IS NOT NULL AND ${DONE}`,
    webhookEventsRecent: `SELECT * FROM ${WEBHOOK_EVENTS} ORDER BY created_at DESC, id DESC LIMIT ${p(1)}`,
    // Failed, or held for an endpoint a `410` disabled: what did not get through.
    webhookEventsFailed: `SELECT * FROM ${WEBHOOK_EVENTS} WHERE EXISTS (SELECT 1 FROM ${WEBHOOK_DELIVERIES} d
      WHERE d.event_id = ${WEBHOOK_EVENTS}.id AND (d.state = 'failed' OR (d.state = 'pending' AND EXISTS
      (SELECT 1 FROM ${WEBHOOK_ENDPOINTS} e WHERE e.url = d.endpoint AND e.disabled_at IS NOT NULL))))
      ORDER BY created_at DESC, id DESC LIMIT ${p(1)}`,
    webhookDeliveriesOf: `SELECT d.*, e.disabled_at FROM ${WEBHOOK_DELIVERIES} d
      LEFT JOIN ${WEBHOOK_ENDPOINTS} e ON e.url = d.endpoint WHERE d.event_id = ${p(1)}`,
    webhookAttemptsOf: `SELECT * FROM ${WEBHOOK_ATTEMPTS} WHERE event_id = ${p(1)} ORDER BY endpoint, attempt`,
    // Before the deliveries change: the endpoints of the deliveries replayed are enabled again.
    enableReplayedEndpoints: `UPDATE ${WEBHOOK_ENDPOINTS} SET disabled_at = NULL WHERE url IN
      (SELECT endpoint FROM ${WEBHOOK_DELIVERIES} WHERE ${replayed(p)})`,
    // A delivery in flight keeps its lease: the answer it gets then decides where it stands.
    replayWebhookDeliveries: `UPDATE ${WEBHOOK_DELIVERIES} SET state = 'pending', step = 0,
      next_attempt_at = ${NOW}, delivered_at = NULL WHERE ${replayed(p)}`,
    pruneWebhookAttempts: `DELETE FROM ${WEBHOOK_ATTEMPTS} WHERE event_id IN (${ORPHANED})`,
    pruneWebhookDeliveries: `DELETE FROM ${WEBHOOK_DELIVERIES} WHERE event_id IN (${ORPHANED})`,
    pruneWebhookEvents: `DELETE FROM ${WEBHOOK_EVENTS} WHERE id IN (${ORPHANED})`,
  };
}
