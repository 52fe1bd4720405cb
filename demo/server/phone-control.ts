/**
 * The phone mock-up's way to the sandbox's control surface: a
 * visitor's phone may read and answer the prompt of that visitor's own order
 * only. When the relay creates an order, the demo server gives the browser
 * that order's lookup token in an HttpOnly cookie scoped to these paths; the
 * phone's calls present it, and the server checks it as the relay checks a
 * lookup. No page script ever holds the token, and another visitor's order
 * id, without its token, reads and changes nothing.
 */
import { errorResponse } from '../../src/http/index.js';
import { SANDBOX_CONTROL_PATH, type Sandbox } from '../../src/sandbox/index.js';
import type { LookupTokens } from '../../src/server/index.js';
import { ORDER_ID_PATTERN } from '../../src/shared/service-contract.js';
import { SANDBOX_BASE_PATH } from '../demo-config.js';
import { cookieOf } from './cookies.js';

/** Where the phone mock-up calls: `…/prompt`, `…/approve`, `…/decline`. */
export const PHONE_CONTROL_PATH = '/api/demo/phone';

const ACTIONS = new Set(['prompt', 'approve', 'decline']);
/** An hour: long past the sandbox's approval window, short enough not to pile up. */
const COOKIE_MAX_AGE_SECONDS = 3600;

/** The cookie that holds the lookup token of `orderId`; one per order, so two tabs each keep theirs. */
export function phoneCookieName(orderId: string): string {
  return `pay_demo_phone_${orderId}`;
}

/** The `Set-Cookie` that lets this browser's phone act on `orderId`. */
export function phoneCookie(orderId: string, lookupToken: string): string {
  return `${phoneCookieName(orderId)}=${lookupToken}; Path=${PHONE_CONTROL_PATH}; Max-Age=${COOKIE_MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict`;
}

/** A relay create answer with the phone's cookie added when it created (or replayed) an order. */
export async function withPhoneCookie(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { order?: { id?: unknown }; lookup_token?: unknown } | undefined;
  const orderId = body?.order?.id;
  const token = body?.lookup_token;
  if (typeof orderId !== 'string' || !ORDER_ID_PATTERN.test(orderId) || typeof token !== 'string')
    return response;
  const headers = new Headers(response.headers);
  headers.append('set-cookie', phoneCookie(orderId, token));
  return new Response(response.body, { status: response.status, headers });
}

/** The handler of {@link PHONE_CONTROL_PATH}: checks the order's token, then asks the sandbox in process. */
export function createPhoneControl(sandbox: Sandbox, lookupTokens: LookupTokens) {
  return async (request: Request, action: string): Promise<Response> => {
    if (!ACTIONS.has(action)) return errorResponse('resourceNotFound', 'The phone does not do that.');
    if (request.method !== 'POST') {
      return errorResponse('methodNotAllowed', 'Use POST.', { headers: { allow: 'POST' } });
    }
    const body = (await request.json().catch(() => undefined)) as { order_id?: unknown } | undefined;
    const orderId = body?.order_id;
    const token = typeof orderId === 'string' ? cookieOf(request, phoneCookieName(orderId)) : undefined;
    if (
      typeof orderId !== 'string' ||
      !ORDER_ID_PATTERN.test(orderId) ||
      token === undefined ||
      !(await lookupTokens.verify(orderId, token))
    ) {
      // The same answer whether the order exists or not: an order id alone tells nothing.
      return errorResponse('resourceNotFound', 'This browser has no order with this order_id.', {
        param: 'order_id',
      });
    }
    return sandbox.handle(
      new Request(`http://demo.internal${SANDBOX_BASE_PATH}${SANDBOX_CONTROL_PATH}/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: orderId }),
      }),
    );
  };
}
