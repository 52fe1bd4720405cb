/**
 * The sandbox's control surface, as the phone mock-up uses it:
 * read the prompt the payer would see, and answer it. The calls go to the
 * demo server's `/api/demo/phone`, which acts only on this browser's own
 * orders: the lookup token of each order the browser created
 * rides along in an HttpOnly cookie, which no script here can read.
 */
import type { PaymentPromptJson } from '../../src/sandbox/index.js';
import { type Issuer, isIssuer, NETWORKS } from '../../src/shared/networks.js';

/** Calls to one sandbox's control surface. */
export interface SandboxControls {
  /** The prompt of an order's payment. */
  prompt(orderId: string, signal?: AbortSignal): Promise<PaymentPromptJson>;
  /** The payer approves: the payment becomes `paid`. */
  approve(orderId: string): Promise<void>;
  /** The payer declines: the payment becomes `failed`. */
  decline(orderId: string): Promise<void>;
}

/** Thrown when the control surface answers with an error; `code` is the service's error code. */
export class SandboxControlRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxControlRequestError';
  }
}

/** Controls for the surface at `controlUrl` (`/api/demo/phone`). */
export function createSandboxControls(controlUrl: string, fetchImpl: typeof fetch = fetch): SandboxControls {
  const post = async (action: string, orderId: string, signal?: AbortSignal): Promise<unknown> => {
    const response = await fetchImpl(`${controlUrl}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: orderId }),
      // The order's token cookie goes with it; never to another origin.
      credentials: 'same-origin',
      signal: signal ?? null,
    });
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      throw new SandboxControlRequestError(
        response.status,
        typeof error?.code === 'string' ? error.code : 'unknown',
        typeof error?.message === 'string' ? error.message : `The sandbox answered ${response.status}.`,
      );
    }
    return body;
  };
  return {
    async prompt(orderId, signal) {
      const body = (await post('prompt', orderId, signal)) as { prompt?: PaymentPromptJson };
      if (!body.prompt)
        throw new SandboxControlRequestError(500, 'invalid_answer', 'No prompt in the answer.');
      return body.prompt;
    },
    async approve(orderId) {
      await post('approve', orderId);
    },
    async decline(orderId) {
      await post('decline', orderId);
    },
  };
}

/**
 * How each network names its wallet on the prompt; the brand names are not
 * translated. Not in the network table: only the demo's phone shows them.
 */
export const WALLET_NAMES: Readonly<Record<Issuer, string>> = {
  mtn: 'MTN MoMo',
  telecel: 'Telecel Cash',
  at: 'AT Money',
};

/** The wallet name of an issuer code, for the prompt's title bar. */
export function walletName(issuer: string): string {
  return isIssuer(issuer) ? WALLET_NAMES[issuer] : 'Mobile money';
}

/** The carrier name a phone's status bar shows. */
export function carrierName(issuer: string): string {
  return isIssuer(issuer) ? NETWORKS[issuer].name : '';
}
