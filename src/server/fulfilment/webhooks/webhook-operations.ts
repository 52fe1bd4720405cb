/**
 * `relay.webhooks`, for operations: the journalled events with their
 * deliveries and every attempt (`list`, the failed ones only with
 * `failed: true`), and `replay` of one event or of every event since a time
 * (to one endpoint or all), due at once from the start of the schedule, which
 * enables a disabled endpoint again. A receiver de-duplicates on `webhook-id`,
 * the same on a replay.
 */
import type { Journal } from '../../journal/journal.js';
import type { WebhookEventRecord } from '../../journal/webhook-journal.js';

/** Which events `list` reads. */
export interface WebhookListOptions {
  /** Only events with a delivery that failed for good. */
  failed?: boolean;
  /** At most this many, newest first. Default 100. */
  limit?: number;
}

/** Every event since `since` (a `Date`, an ISO 8601 time or epoch ms), to `endpoint` only when given. */
export interface WebhookReplaySince {
  since: Date | string | number;
  endpoint?: string;
}

/** `relay.webhooks`. */
export interface RelayWebhooks {
  /** The newest events first, with their deliveries and attempts (no body: no customer). */
  list(options?: WebhookListOptions): Promise<WebhookEventRecord[]>;
  /** Sends an event (by id) or every event since a time again, from the start of the schedule; resolves with how many deliveries. */
  replay(which: string | WebhookReplaySince): Promise<number>;
}

/** How many events `list` reads unless told. */
const DEFAULT_LIST_LIMIT = 100;

/** `relay.webhooks` on `journal`; `dispatch` sends what a replay made due. */
export function relayWebhooks(journal: Journal, dispatch: () => void): RelayWebhooks {
  return Object.freeze({
    list(options: WebhookListOptions = {}) {
      const limit = options.limit ?? DEFAULT_LIST_LIMIT;
      if (!Number.isInteger(limit) || limit <= 0) {
        return Promise.reject(new TypeError('relay.webhooks.list: limit must be a positive whole number.'));
      }
      return journal.listWebhookEvents({ limit, failed: options.failed === true });
    },
    async replay(which: string | WebhookReplaySince) {
      const replayed = await journal.replayWebhooks(replayOf(which));
      if (replayed > 0) dispatch();
      return replayed;
    },
  });
}

/** What `replay` was given, checked. */
function replayOf(which: string | WebhookReplaySince) {
  if (typeof which === 'string' && which.length > 0) return { eventId: which };
  if (typeof which === 'object' && which !== null) {
    const since = new Date(which.since as string).getTime();
    if (Number.isFinite(since) && (which.endpoint === undefined || typeof which.endpoint === 'string')) {
      return which.endpoint === undefined ? { since } : { since, endpoint: which.endpoint };
    }
  }
  throw new TypeError(
    'relay.webhooks.replay: give an event id (msg_…) or { since: <ISO time>, endpoint?: <url> }.',
  );
}

/** `relay.webhooks` without a journal: both reject with what to give. */
export const NO_WEBHOOKS: RelayWebhooks = Object.freeze({
  list: () => Promise.reject(needsJournal('list')),
  replay: () => Promise.reject(needsJournal('replay')),
});

function needsJournal(method: string): Error {
  return new Error(
    `relay.webhooks.${method} reads the order journal: give createCheckoutRelay a journal (journal: await openJournal('sqlite:.data/pay-checkout.db')).`,
  );
}
