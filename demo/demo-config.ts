/**
 * What the demo server and the demo page agree on: where things are mounted
 * and the shape of `/api/demo/config`. No Node or DOM here, so both sides import it.
 */
import type { Currency } from '../src/shared/service-contract.js';

/** Where the relay answers; the page gives these to the element. */
export const CHECKOUT_PATHS = {
  create: '/api/checkout/orders',
  lookup: '/api/checkout/lookup',
  price: '/api/checkout/price',
} as const;

/** Where the embedded sandbox is mounted. */
export const SANDBOX_BASE_PATH = '/sandbox';

/** The page reads the catalogue, the mode and the embed's integrity here. */
export const DEMO_CONFIG_PATH = '/api/demo/config';

/** The merchant's-server view reads each order as the server sees it here. */
export const DEMO_FULFILMENTS_PATH = '/api/demo/fulfilments';

/** Where the demo server receives its own relay's signed webhooks (POST, from this machine only). */
export const DEMO_WEBHOOK_PATH = '/api/demo/webhooks';

/** This browser's cart: `GET` reads it (made on first use), `POST` starts a new one. */
export const DEMO_CART_PATH = '/api/demo/cart';

/** What `/api/demo/cart` answers: the cart's reference, which the server derives from its HttpOnly session. */
export interface DemoCartAnswer {
  reference: string;
}

/**
 * What `GET /api/demo/fulfilments` answers: newest first, each order's id and
 * status, and what it was for as the server's callback receives it (the
 * cart's reference, its items and the amount charged). Nothing personal.
 */
export interface DemoFulfilments {
  fulfilments: {
    order_id: string;
    /** `pending` while the server watches the order, then how it settled. */
    status: 'pending' | 'paid' | 'failed' | 'expired';
    /** When the server's callback returned (ISO 8601), or null while it is owed. */
    delivered_at: string | null;
    /** The cart's reference, from the server's session; null for an order created without a session. */
    reference: string | null;
    /** The line items charged: product names and quantities. */
    items: { name: string; quantity: number }[];
    /** What the shopper is charged, in minor units; null only for an order of an older journal. */
    amount: { currency: string; value: number } | null;
    /** True when this order is paid and another order of the same reference is too: one checkout paid twice. */
    paid_twice: boolean;
    /** The other paid orders of this order's reference (order ids only), when it is paid; else empty. */
    other_paid_order_ids: string[];
    /** The order's webhook events to the demo server's own receiver, newest first, with each attempt's status and time. */
    webhooks: {
      event_id: string;
      type: string;
      state: 'pending' | 'delivered' | 'failed';
      /** Each attempt: its number, the HTTP status (null when no answer came) and when it was made (ISO 8601). */
      attempts: { attempt: number; status: number | null; at: string }[];
    }[];
  }[];
}

/** Languages the demo's checkout speaks, as the element's `locale` values. */
export const DEMO_LOCALES = ['en', 'fr'] as const;
/** One of the demo's languages. */
export type DemoLocale = (typeof DEMO_LOCALES)[number];

/** A product the demo shop sells; `price.value` is in minor units (pesewas). */
export interface DemoProduct {
  id: string;
  /** Names and descriptions per language; the English name is the one charged. */
  text: Record<DemoLocale, { name: string; description: string }>;
  price: { currency: Currency; value: number };
  /** Most units one cart may hold. */
  maxQuantity: number;
}

/**
 * The cart the page sends as the element's `cart` property; the server prices
 * its items. Its `reference` is the server's answer, there so the element
 * starts a new checkout when the cart changes; the server never reads it.
 */
export interface DemoCart {
  reference?: string;
  items: { product_id: string; quantity: number }[];
}

/** What `GET /api/demo/config` answers. */
export interface DemoConfig {
  /** `sandbox` when the embedded sandbox answers payments, `service` for a real service. */
  mode: 'sandbox' | 'service';
  merchantName: string;
  products: readonly DemoProduct[];
  checkout: typeof CHECKOUT_PATHS;
  /** The sandbox's control surface for the phone mock-up; null with a real service. */
  sandbox: { controlUrl: string; approveAfterMs: number } | null;
  /** The package version and the embed bundle's Subresource Integrity, null when it is not built. */
  embed: { version: string; integrity: string | null };
}
