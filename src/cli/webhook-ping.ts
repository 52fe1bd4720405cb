/**
 * The `ping` of `pay-checkout webhooks test <url>`: one event of type `ping`
 * (data `{}`), signed with the endpoint's own secrets and sent by the very
 * sender deliveries use (no redirect followed, private targets refused unless
 * the configuration allows them), so a receiver that accepts it accepts the
 * orders' events too.
 */
import { randomBytes } from 'node:crypto';
import { WEBHOOK_USER_AGENT } from '../server/fulfilment/webhooks/user-agent.js';
import { sendWebhook, type WebhookAttemptResult } from '../server/webhooks/webhook-sender.js';
import { createWebhookSigner, webhookSignatureHeaders } from '../server/webhooks/webhook-signature.js';

/** An endpoint to ping: its URL and the secrets it is signed with. */
export interface PingTarget {
  readonly url: string;
  readonly secret: readonly string[];
}

/** The ping's id and what its one attempt came to. */
export interface PingResult {
  readonly id: string;
  readonly result: WebhookAttemptResult;
}

/** Sends one signed `ping` to `target`. Never throws for the receiver's sake: its failure is in `result`. */
export async function sendPing(target: PingTarget, allowPrivateTargets: boolean): Promise<PingResult> {
  // A ping is no order's event: a random id, of the same shape as an event's.
  const id = `msg_${randomBytes(18).toString('base64url')}`;
  const body = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: {} });
  const signer = createWebhookSigner(target.secret);
  const signature = await webhookSignatureHeaders(signer, id, Math.floor(Date.now() / 1000), body);
  const headers = { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...signature };
  const result = await sendWebhook({ url: target.url, headers, body }, { allowPrivateTargets });
  return { id, result };
}
