/**
 * What the merchant API needs of the relay's server-created checkouts
 * (`relay.checkouts`): create one, read one. Written as the shape it uses,
 * so any object with these two methods serves.
 */
import type { Currency } from '../../shared/service-contract.js';
import type { OrderAmount } from '../journal/journal.js';

/** One line of a checkout: the product, how many, its unit price in minor units, the shop's sku. */
export interface MerchantCheckoutLineItem {
  name: string;
  quantity: number;
  unitPrice: { currency: Currency; value: number };
  sku: string | null;
}

/** A server-created checkout as the relay reads it. */
export interface MerchantCheckout {
  id: string;
  status: 'open' | 'paid' | 'expired';
  reference: string;
  metadata: Record<string, string>;
  lineItems: MerchantCheckoutLineItem[];
  amount: OrderAmount;
  origin: string | null;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms. */
  expiresAt: number;
  /** Orders of its reference, newest first. */
  orderIds: string[];
  /** The first paid one, or `null`. */
  paidOrderId: string | null;
}

/** What a checkout is created from, checked on the wire first. */
export interface MerchantCheckoutInput {
  lineItems: MerchantCheckoutLineItem[];
  reference: string;
  metadata?: Record<string, string>;
  expiresInSeconds?: number;
  origin?: string;
}

/** `relay.checkouts`: create a checkout (with its client secret), read one by id. */
export interface MerchantCheckouts {
  create(input: MerchantCheckoutInput): Promise<MerchantCheckout & { clientSecret: string }>;
  get(id: string): Promise<MerchantCheckout | undefined>;
}
