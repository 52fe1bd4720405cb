/**
 * The relay's webhook options (`webhooks`, `allowPrivateWebhookTargets`),
 * checked into settings: the endpoints, whether private addresses may be
 * targets (development only), how a request is sent (the Node entry's
 * sender; without one, webhooks are refused at startup), and the signal
 * the delivery target gives the dispatcher once an order's events are journalled.
 */

import type { WebhookSender } from './webhook-dispatcher.js';
import {
  checkedWebhookEndpoints,
  type WebhookEndpoint,
  type WebhookEndpointOptions,
} from './webhook-endpoints.js';

/** The webhook options of `createCheckoutRelay`. */
export interface WebhookOptions {
  /** Endpoints every settled order's event is sent to, signed (Standard Webhooks); needs a journal. */
  webhooks?: readonly WebhookEndpointOptions[];
  /** `true` lets endpoints resolve to private, loopback or link-local addresses: for development only. Default `false`. */
  allowPrivateWebhookTargets?: boolean;
}

/** The webhook settings, checked. */
export interface WebhookSettings {
  readonly endpoints: readonly WebhookEndpoint[];
  readonly allowPrivateTargets: boolean;
  readonly send: WebhookSender;
  /** Called once an order's events are journalled; the dispatcher, once started, listens. */
  readonly journalled: { listener: () => void };
}

/** Checks the webhook options; `undefined` when no endpoint is given. */
export function resolveWebhookSettings(
  options: WebhookOptions,
  sender: WebhookSender | undefined,
  owner: string,
): WebhookSettings | undefined {
  const { allowPrivateWebhookTargets: allow } = options;
  if (allow !== undefined && typeof allow !== 'boolean') {
    throw new TypeError(`${owner}: allowPrivateWebhookTargets must be true or false.`);
  }
  if (options.webhooks === undefined) return undefined;
  const endpoints = checkedWebhookEndpoints(options.webhooks, owner);
  if (endpoints.length === 0) return undefined;
  if (sender === undefined) {
    throw new TypeError(
      `${owner}: webhooks are sent from Node: import createCheckoutRelay from pay-checkout/server on Node, or leave webhooks out.`,
    );
  }
  return Object.freeze({
    endpoints,
    allowPrivateTargets: allow ?? false,
    send: sender,
    journalled: { listener: () => undefined },
  });
}
