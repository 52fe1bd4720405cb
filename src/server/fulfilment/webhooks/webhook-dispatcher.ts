/**
 * Sends the webhook deliveries the journal holds, in one relay process: it
 * claims due deliveries endpoint by endpoint under a lease (so one attempt
 * per event and endpoint is in flight across a fleet), signs and sends each
 * on its own, records every attempt, and follows the schedule
 * (webhook-schedule.ts): a 2xx delivers, a `410` disables the endpoint, any
 * other answer (a 3xx too: redirects are not followed) or none is tried
 * again later, and after the last step the delivery has failed.
 *
 * A slow or dead endpoint never holds others: each endpoint has at most
 * `MAX_SENDS_PER_ENDPOINT` sends in flight and the process `MAX_SENDS_IN_FLIGHT`,
 * each send bounded to `WEBHOOK_SEND_TIMEOUT_MS`, and an endpoint's claim
 * takes only what its own room allows.
 */
import type { Clock } from '../../../shared/clock.js';
import type { RelayReporter } from '../../events/relay-reporter.js';
import type { ClaimedWebhookDelivery, WebhookJournal } from '../../journal/webhook-journal.js';
import type {
  WebhookRequest,
  WebhookAttemptResult as WebhookSendResult,
} from '../../webhooks/webhook-sender.js';
import { createWebhookSigner, type WebhookSigner } from '../../webhooks/webhook-signature.js';
import { attempt, type LeaseClock, WEBHOOK_LEASE_MS } from './webhook-attempt.js';
import type { WebhookEndpoint } from './webhook-endpoints.js';

/** How one request is sent (webhooks/webhook-sender.ts on Node). */
export type WebhookSender = (
  request: WebhookRequest,
  options: { allowPrivateTargets: boolean; timeoutMs?: number; now?: () => number },
) => Promise<WebhookSendResult>;

/** Sends in flight to one endpoint at most. */
export const MAX_SENDS_PER_ENDPOINT = 8;
/** Sends in flight in one process at most. */
export const MAX_SENDS_IN_FLIGHT = 64;
/** How often the journal is asked for due deliveries when nothing woke the dispatcher sooner. */
export const WEBHOOK_POLL_MS = 1_000;

/** What the dispatcher needs. */
export interface WebhookDispatcherDeps {
  readonly journal: WebhookJournal;
  readonly endpoints: readonly WebhookEndpoint[];
  readonly send: WebhookSender;
  readonly allowPrivateTargets: boolean;
  /** This process's name in leases. */
  readonly owner: string;
  /** The relay's clock: `webhook-timestamp` is its time. */
  readonly now: () => number;
  /** The timers its polls run on; `undefined`: only `dispatchDue()` dispatches (the merchant's ticks). */
  readonly timers: Pick<Clock, 'setTimeout' | 'clearTimeout'> | undefined;
  /** The timers a retried journal write waits on, ticks or not. */
  readonly waitTimers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** The clocks a lease's elapsed time is read on (the monotonic one, and the relay's when given). */
  readonly elapsedClocks: readonly (() => number)[];
  readonly reporter: Pick<RelayReporter, 'emit'>;
}

/** The dispatcher of one relay process. */
export interface WebhookDispatcher {
  /** Claims the due deliveries there is room for and starts each; resolves once claimed. Never rejects. */
  dispatchDue(): Promise<void>;
  /** Resolves once every send in flight now (and those they lead to) has been recorded. */
  settled(): Promise<void>;
  /** Polls no more and claims nothing more; resolves once the sends in flight have ended (each within its bound). */
  drain(): Promise<void>;
}

/** Starts the dispatcher; it polls on `timers` when given. */
export function startWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  // Each endpoint's secrets are imported as keys once.
  const signers = new Map<string, WebhookSigner>(
    deps.endpoints.map((endpoint) => [endpoint.url, createWebhookSigner(endpoint.secrets)]),
  );
  const inFlight = new Set<Promise<void>>();
  const perEndpoint = new Map<string, number>(deps.endpoints.map((endpoint) => [endpoint.url, 0]));
  const claiming = new Map<string, Promise<void>>();
  const state = { stopped: false, timer: undefined as unknown };

  function start(endpoint: WebhookEndpoint, delivery: ClaimedWebhookDelivery, lease: LeaseClock): void {
    perEndpoint.set(endpoint.url, (perEndpoint.get(endpoint.url) ?? 0) + 1);
    const signer = signers.get(endpoint.url) as WebhookSigner;
    const sending = attempt(deps, { endpoint, signer, lease }, delivery).finally(() => {
      inFlight.delete(sending);
      perEndpoint.set(endpoint.url, (perEndpoint.get(endpoint.url) ?? 1) - 1);
      // Room again: what was due while it was full goes now.
      if (!state.stopped) void dispatchTo(endpoint);
    });
    inFlight.add(sending);
  }

  async function claimFor(endpoint: WebhookEndpoint): Promise<void> {
    const room = Math.min(
      MAX_SENDS_PER_ENDPOINT - (perEndpoint.get(endpoint.url) ?? 0),
      MAX_SENDS_IN_FLIGHT - inFlight.size,
    );
    if (room <= 0 || state.stopped) return;
    // The leases are timed from before the claim is asked for.
    const lease = leaseClockOf(deps.elapsedClocks);
    try {
      const claimed = await deps.journal.claimWebhookDeliveries(deps.owner, {
        endpoint: endpoint.url,
        limit: room,
        leaseMs: WEBHOOK_LEASE_MS,
      });
      // Claimed as the relay began to close: left to their leases, which run out.
      if (!state.stopped) for (const delivery of claimed) start(endpoint, delivery, lease);
    } catch (error) {
      deps.reporter.emit({ type: 'watcher_error', stage: 'webhook', error });
    }
  }

  const dispatchTo = oneClaimAtATime(claiming, claimFor, () => state.stopped);

  const dispatchDue = async () => {
    await Promise.all(deps.endpoints.map(dispatchTo));
  };

  function poll(): void {
    if (!deps.timers || state.stopped) return;
    state.timer = deps.timers.setTimeout(() => {
      void dispatchDue().finally(poll);
    }, WEBHOOK_POLL_MS);
  }
  poll();

  return {
    dispatchDue,
    async settled() {
      while (inFlight.size > 0 || claiming.size > 0)
        await Promise.allSettled([...inFlight, ...claiming.values()]);
    },
    async drain() {
      state.stopped = true;
      if (state.timer !== undefined) deps.timers?.clearTimeout(state.timer);
      await Promise.allSettled([...inFlight, ...claiming.values()]);
    },
  };
}

/**
 * `claimFor` run one at a time per endpoint (`claiming` holds the one running);
 * a wake-up while one runs leads to one more after it, unless `stopped`.
 */
function oneClaimAtATime(
  claiming: Map<string, Promise<void>>,
  claimFor: (endpoint: WebhookEndpoint) => Promise<void>,
  stopped: () => boolean,
): (endpoint: WebhookEndpoint) => Promise<void> {
  const again = new Set<string>();
  const dispatchTo = (endpoint: WebhookEndpoint): Promise<void> => {
    const running = claiming.get(endpoint.url);
    if (running) {
      again.add(endpoint.url);
      return running;
    }
    const claim = claimFor(endpoint).finally(() => {
      claiming.delete(endpoint.url);
      if (again.delete(endpoint.url) && !stopped()) void dispatchTo(endpoint);
    });
    claiming.set(endpoint.url, claim);
    return claim;
  };
  return dispatchTo;
}

/** The time elapsed since now, on every clock of `clocks`: the longest counts. */
function leaseClockOf(clocks: readonly (() => number)[]): LeaseClock {
  const started = clocks.map((clock) => clock());
  return { elapsedMs: () => Math.max(...clocks.map((clock, index) => clock() - (started[index] ?? 0))) };
}
