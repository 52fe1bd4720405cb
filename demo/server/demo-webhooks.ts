/**
 * The demo server as a webhook receiver of its own: every settled order the
 * demo's relay delivers also goes out as a signed webhook to
 * `POST /api/demo/webhooks` on this very server (a private target, allowed
 * because it is the demo's own machine), where it is verified as a
 * merchant's receiver would verify it. The secret is made for this process
 * and never leaves it. The "Your server" panel then shows each event's
 * deliveries and attempts, read from the journal.
 */
import { randomBytes } from 'node:crypto';
import type { ConnectionInfo } from '../../src/http/index.js';
import { errorResponse } from '../../src/http/index.js';
import {
  type Journal,
  verifyWebhook,
  type WebhookEventRecord,
  type WebhookOptions,
} from '../../src/server/node.js';
import { DEMO_WEBHOOK_PATH, type DemoFulfilments } from '../demo-config.js';
import { isLocalUnforwarded } from './local-only.js';

type DemoWebhook = DemoFulfilments['fulfilments'][number]['webhooks'][number];

/** Events the panel reads: a dozen orders have a handful each at most. */
const SHOWN_EVENTS = 50;

/** The demo's receiver: the relay's webhook options pointing at it, and its answer. */
export interface DemoWebhookReceiver {
  /** `webhooks` and `allowPrivateWebhookTargets` for `createCheckoutRelay`, once the server's URL is known. */
  relayOptions(selfUrl: string): WebhookOptions;
  /** Answers `POST /api/demo/webhooks`: 204 for a delivery whose signature holds, 400 otherwise. */
  answer(request: Request, connection: ConnectionInfo | undefined): Promise<Response>;
}

/** A receiver with a fresh secret for this process. */
export function createDemoWebhookReceiver(): DemoWebhookReceiver {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  return {
    relayOptions: (selfUrl) => ({
      webhooks: [{ url: `${selfUrl}${DEMO_WEBHOOK_PATH}`, secret }],
      allowPrivateWebhookTargets: true,
    }),
    async answer(request, connection) {
      // Only the demo's own relay sends here: nothing from elsewhere is read.
      if (!isLocalUnforwarded(request, connection)) {
        return errorResponse('resourceNotFound', `There is no ${DEMO_WEBHOOK_PATH} here.`);
      }
      if (request.method !== 'POST') {
        return errorResponse('methodNotAllowed', 'Use POST.', { headers: { allow: 'POST' } });
      }
      try {
        await verifyWebhook(secret, request.headers, await request.text());
      } catch {
        return new Response(null, { status: 400 });
      }
      // The demo ships nothing: a real receiver would de-duplicate on webhook-id and ship here.
      return new Response(null, { status: 204 });
    },
  };
}

/** Each order's webhook events, with their attempts (status and time only), read from `journal`. */
export async function webhooksByOrder(journal: Journal): Promise<Map<string, DemoWebhook[]>> {
  const events = await journal.listWebhookEvents({ limit: SHOWN_EVENTS, failed: false });
  const byOrder = new Map<string, DemoWebhook[]>();
  for (const event of events) {
    const shown = byOrder.get(event.orderId) ?? [];
    shown.push(demoWebhookOf(event));
    byOrder.set(event.orderId, shown);
  }
  return byOrder;
}

/** One event as the panel shows it: its id, type, state and attempts, no endpoint and no body. */
function demoWebhookOf(event: WebhookEventRecord): DemoWebhook {
  const [delivery] = event.deliveries;
  return {
    event_id: event.id,
    type: event.type,
    state: delivery?.state ?? 'pending',
    attempts: (delivery?.attempts ?? []).map((attempt) => ({
      attempt: attempt.attempt,
      status: attempt.status,
      at: new Date(attempt.at).toISOString(),
    })),
  };
}
