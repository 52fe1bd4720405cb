/**
 * The `webhooks` option of `createCheckoutRelay`, checked once at startup:
 * each endpoint's URL (http or https, given once), its secret or secrets
 * (`whsec_…`; during a rotation each one signs), and the events it takes
 * (all by default). A mistake is a TypeError naming the field.
 */

import { parseWebhookSecret } from '../../webhooks/webhook-signature.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-event.js';

/** One endpoint as the merchant gives it. */
export interface WebhookEndpointOptions {
  /** Where events are sent by POST (`https://shop.example/webhooks/pay-checkout`). */
  url: string;
  /** The endpoint's secret (`whsec_…`), or several while one replaces another: each signs. */
  secret: string | readonly string[];
  /** The events it takes; default every one (`order.paid`, `order.failed`, `order.expired`). */
  events?: readonly WebhookEventType[];
}

/** One endpoint, checked. */
export interface WebhookEndpoint {
  readonly url: string;
  readonly secrets: readonly string[];
  readonly events: ReadonlySet<WebhookEventType>;
}

/** `value` (the `webhooks` option) checked into endpoints; `owner` starts each message. */
export function checkedWebhookEndpoints(value: unknown, owner: string): readonly WebhookEndpoint[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`${owner}: webhooks must be an array of { url, secret, events? }.`);
  }
  const seen = new Set<string>();
  return Object.freeze(
    value.map((entry: unknown, index) => {
      const field = `${owner}: webhooks[${index}]`;
      if (typeof entry !== 'object' || entry === null)
        throw new TypeError(`${field} must be { url, secret, events? }.`);
      const { url, secret, events } = entry as Record<string, unknown>;
      const checkedUrl = checkedUrlOf(url, `${field}.url`);
      if (seen.has(checkedUrl)) throw new TypeError(`${field}.url is given twice: one entry per endpoint.`);
      seen.add(checkedUrl);
      return Object.freeze({
        url: checkedUrl,
        secrets: Object.freeze(checkedSecrets(secret, `${field}.secret`)),
        events: checkedEvents(events, `${field}.events`),
      });
    }),
  );
}

function checkedUrlOf(url: unknown, field: string): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (
    parsed &&
    (parsed.protocol === 'https:' || parsed.protocol === 'http:') &&
    !parsed.username &&
    !parsed.password
  )
    return parsed.href;
  throw new TypeError(`${field} must be an http or https URL without credentials.`);
}

function checkedSecrets(secret: unknown, field: string): string[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0 || secrets.some((one) => typeof one !== 'string')) {
    throw new TypeError(`${field} must be a whsec_… secret, or an array of them during a rotation.`);
  }
  // A TypeError naming the field, never quoting the secret.
  for (const [index, one] of (secrets as string[]).entries())
    parseWebhookSecret(one, secrets.length > 1 ? `${field}[${index}]` : field);
  return [...(secrets as string[])];
}

function checkedEvents(events: unknown, field: string): ReadonlySet<WebhookEventType> {
  if (events === undefined) return new Set(WEBHOOK_EVENT_TYPES);
  const known = new Set<unknown>(WEBHOOK_EVENT_TYPES);
  if (!Array.isArray(events) || events.length === 0 || events.some((event) => !known.has(event))) {
    throw new TypeError(`${field} must list one or more of ${WEBHOOK_EVENT_TYPES.join(', ')}.`);
  }
  return new Set(events as WebhookEventType[]);
}
