/**
 * One webhook attempt under the lease its claim took: signed with the
 * endpoint's secrets, sent (at most `WEBHOOK_SEND_TIMEOUT_MS`), and recorded
 * with what the answer leads to. A send is started only while enough of the
 * lease is left for it to end, so a process paused past its lease sends
 * nothing another process may be sending; a journal that does not take the
 * record is asked again while the lease holds, so a blip of the database
 * after the receiver answered does not lead to a second send.
 */
import type { Clock } from '../../../shared/clock.js';
import type { RelayReporter } from '../../events/relay-reporter.js';
import type { ClaimedWebhookDelivery, WebhookJournal, WebhookNext } from '../../journal/webhook-journal.js';
import type {
  WebhookRequest,
  WebhookAttemptResult as WebhookSendResult,
} from '../../webhooks/webhook-sender.js';
import type { WebhookSigner } from '../../webhooks/webhook-signature.js';
import { WEBHOOK_USER_AGENT } from './user-agent.js';
import type { WebhookEndpoint } from './webhook-endpoints.js';
import { bodyToSend } from './webhook-event.js';
import { nextWebhookWaitMs } from './webhook-schedule.js';

/** How long one attempt may take, connection and answer included. */
export const WEBHOOK_SEND_TIMEOUT_MS = 15_000;
/** How long a claimed delivery is this process's: past the attempt's bound, with room to record it. */
export const WEBHOOK_LEASE_MS = 2 * WEBHOOK_SEND_TIMEOUT_MS;
/** What is kept of the lease as a margin: a send starts only if it can end this long before the lease does. */
const LEASE_MARGIN_MS = 1_000;
/** First wait before the journal is asked again to record an attempt; doubled each time, at most a second. */
const RECORD_RETRY_MS = 100;
const MAX_RECORD_RETRY_MS = 1_000;

/** How long ago a claim was asked for. */
export interface LeaseClock {
  elapsedMs(): number;
}

/** What an attempt needs of the dispatcher. */
export interface AttemptDeps {
  readonly journal: Pick<WebhookJournal, 'recordWebhookAttempt'>;
  readonly send: (
    request: WebhookRequest,
    options: { allowPrivateTargets: boolean; timeoutMs?: number; now?: () => number },
  ) => Promise<WebhookSendResult>;
  readonly allowPrivateTargets: boolean;
  readonly owner: string;
  readonly now: () => number;
  readonly waitTimers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  readonly reporter: Pick<RelayReporter, 'emit'>;
}

/** What an attempt's answer leads to, `step` attempts into the schedule (this one included). */
export function nextAfter(result: WebhookSendResult, step: number): WebhookNext {
  const { status } = result;
  if (status !== null && status >= 200 && status < 300) return { state: 'delivered' };
  if (status === 410) return { state: 'disabled' };
  const retryInMs = nextWebhookWaitMs(step, result.retryAfterMs);
  return retryInMs === undefined ? { state: 'failed' } : { state: 'pending', retryInMs };
}

/** One attempt: signed, sent, and recorded with what comes next. Never rejects. */
export async function attempt(
  deps: AttemptDeps,
  { endpoint, signer, lease }: { endpoint: WebhookEndpoint; signer: WebhookSigner; lease: LeaseClock },
  delivery: ClaimedWebhookDelivery,
): Promise<void> {
  try {
    // Too little of the lease is left to end a send within it: it is left to whoever claims it next.
    if (lease.elapsedMs() > WEBHOOK_LEASE_MS - WEBHOOK_SEND_TIMEOUT_MS - LEASE_MARGIN_MS) return;
    const body = bodyToSend(delivery.body, delivery.customer);
    const timestamp = Math.floor(deps.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await signer(delivery.eventId, timestamp, body),
    };
    const result = await deps.send(
      { url: endpoint.url, headers, body },
      { allowPrivateTargets: deps.allowPrivateTargets, timeoutMs: WEBHOOK_SEND_TIMEOUT_MS, now: deps.now },
    );
    const next = nextAfter(result, delivery.step + 1);
    if (await record(deps, delivery, { ...result, next }, lease)) report(deps, delivery, result, next);
  } catch (error) {
    // The journal failed past the lease: the delivery is tried again once it runs out.
    deps.reporter.emit({ type: 'watcher_error', stage: 'webhook', error });
  }
}

/** Tells `onEvent` what a recorded attempt came to. */
function report(
  deps: AttemptDeps,
  delivery: ClaimedWebhookDelivery,
  result: WebhookSendResult,
  next: WebhookNext,
): void {
  const url = new URL(delivery.endpoint);
  const common = {
    eventId: delivery.eventId,
    endpoint: `${url.origin}${url.pathname}`,
    attempt: delivery.attempts + 1,
  };
  if (next.state === 'delivered') {
    deps.reporter.emit({ type: 'webhook_delivered', ...common, status: result.status as number });
    return;
  }
  deps.reporter.emit({
    type: 'webhook_attempt_failed',
    ...common,
    ...{ status: result.status, error: result.error, state: next.state },
    nextAttemptAt: next.state === 'pending' ? deps.now() + next.retryInMs : null,
  });
}

/** Records the attempt, asking again while the lease holds when the journal does not answer; `false` if the lease passed on. */
async function record(
  deps: AttemptDeps,
  delivery: ClaimedWebhookDelivery,
  result: WebhookSendResult & { next: WebhookNext },
  lease: LeaseClock,
): Promise<boolean> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await deps.journal.recordWebhookAttempt(delivery, deps.owner, result);
    } catch (error) {
      const waitMs = Math.min(MAX_RECORD_RETRY_MS, RECORD_RETRY_MS * 2 ** tries);
      if (lease.elapsedMs() + waitMs > WEBHOOK_LEASE_MS - LEASE_MARGIN_MS) throw error;
      await new Promise<void>((resolve) => deps.waitTimers.setTimeout(resolve, waitMs));
    }
  }
}
