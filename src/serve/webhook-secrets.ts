/**
 * The secrets of serve's webhook endpoints, read from the variables each
 * endpoint's `secretEnv` names (several, comma separated, while a secret is
 * rotated: the receiver accepts either, serve signs with each). A mistake
 * names the field and the variable, never the value.
 */
import {
  isWebhookSecret,
  MAX_WEBHOOK_SECRET_BYTES,
  MIN_WEBHOOK_SECRET_BYTES,
} from '../server/webhooks/webhook-signature.js';
import type { WebhookEndpointConfig } from './serve-config.js';

/** A webhook endpoint ready for `createCheckoutRelay`'s `webhooks` option. */
export interface ServeWebhookEndpoint {
  readonly url: string;
  /** The `whsec_…` secrets, in the order `secretEnv` names them. */
  readonly secret: readonly string[];
  /** The subscribed events; `undefined`: all. */
  readonly events: WebhookEndpointConfig['events'];
}

/** The endpoints with their secrets, or one line per mistake (`webhooks[0].secretEnv: …`). */
export type WebhookSecretsCheck =
  | { ok: true; endpoints: ServeWebhookEndpoint[] }
  | { ok: false; errors: string[] };

/** The variable names a `secretEnv` lists. */
export function secretEnvNames(secretEnv: string): string[] {
  return secretEnv.split(',').map((name) => name.trim());
}

/** What is wrong with the variable `name` for the endpoint at `index`, or `undefined`. */
function secretMistake(index: number, name: string, value: string | undefined): string | undefined {
  const field = `webhooks[${index}].secretEnv`;
  const expected = `expected whsec_ and the base64 of ${MIN_WEBHOOK_SECRET_BYTES} to ${MAX_WEBHOOK_SECRET_BYTES} random bytes (openssl rand -base64 32 makes them)`;
  if (value === undefined || value === '') return `${field}: ${name} is not set; ${expected}`;
  if (!isWebhookSecret(value)) return `${field}: ${name}: ${expected}`;
  return undefined;
}

/** The secrets of the endpoint at `index`, or one line per variable that is wrong. */
export function readEndpointSecrets(
  endpoint: WebhookEndpointConfig,
  index: number,
  env: NodeJS.ProcessEnv,
): { endpoint: ServeWebhookEndpoint; errors: string[] } {
  const names = secretEnvNames(endpoint.secretEnv);
  const errors = names.flatMap((name) => secretMistake(index, name, env[name]) ?? []);
  const secret = names.map((name) => env[name] ?? '');
  return { endpoint: { url: endpoint.url, secret, events: endpoint.events }, errors };
}

/** Reads each endpoint's secrets from `env`. */
export function readWebhookSecrets(
  webhooks: readonly WebhookEndpointConfig[],
  env: NodeJS.ProcessEnv,
): WebhookSecretsCheck {
  const read = webhooks.map((endpoint, index) => readEndpointSecrets(endpoint, index, env));
  const errors = read.flatMap((one) => one.errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, endpoints: read.map((one) => one.endpoint) };
}
