/**
 * The demo shop's cart session: where an order's reference comes from. The
 * browser holds only a random session token, in an HttpOnly cookie no page
 * script can read or set; the cart's reference is an HMAC of that token
 * under the server's secret. A reference read anywhere (the public "Your
 * server" feed, a receipt) therefore gives no way to pay under it: a
 * stranger's order carries the reference of the stranger's own session.
 * `POST` starts a new cart, as after a paid checkout, so the next purchase
 * in the same tab is a new checkout with a reference of its own.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { errorResponse, jsonResponse } from '../../src/http/index.js';
import type { DemoCartAnswer } from '../demo-config.js';
import { cookieOf } from './cookies.js';

/** The cookie that holds the browser's cart session. */
export const CART_COOKIE = 'pay_demo_cart';

/** A session token as the server makes them: 32 random bytes, base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** A day: a cart outlives a page's checkout, not a shopper's week. */
const COOKIE_MAX_AGE_SECONDS = 24 * 60 * 60;

/** The demo's carts under one secret: the reference of a request's session, and the cart route. */
export interface DemoCarts {
  /** The reference of the session the request's cookie names; null without one. */
  referenceOf(request: Request): string | null;
  /** `GET /api/demo/cart`: this browser's cart (made when it has none); `POST`: a new cart. */
  answer(request: Request): Response;
}

/** The carts whose references are keyed by `secret` (the relay's lookup secret). */
export function createDemoCarts(secret: string): DemoCarts {
  const referenceFor = (token: string) =>
    `cart-${createHmac('sha256', secret).update(`demo-cart:${token}`).digest('hex').slice(0, 32)}`;
  const tokenOf = (request: Request) => {
    const token = cookieOf(request, CART_COOKIE);
    return token !== undefined && TOKEN_PATTERN.test(token) ? token : undefined;
  };
  return {
    referenceOf(request) {
      const token = tokenOf(request);
      return token === undefined ? null : referenceFor(token);
    },
    answer(request) {
      if (request.method !== 'GET' && request.method !== 'POST') {
        return errorResponse('methodNotAllowed', 'Use GET, POST.', { headers: { allow: 'GET, POST' } });
      }
      const kept = request.method === 'GET' ? tokenOf(request) : undefined;
      const token = kept ?? randomBytes(32).toString('base64url');
      const body: DemoCartAnswer = { reference: referenceFor(token) };
      const headers: Record<string, string> = { 'cache-control': 'no-store' };
      if (kept === undefined) {
        headers['set-cookie'] =
          `${CART_COOKIE}=${token}; Path=/api; Max-Age=${COOKIE_MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict`;
      }
      return jsonResponse(body, 200, headers);
    },
  };
}
