/**
 * The sandbox's orders, bounded: a Map by id for O(1) lookup, and per
 * application a {@link Deque} in creation order, so page n (newest first) is
 * O(page_size) with no scan and no sort. Past `maxOrders` the oldest order
 * goes first, with its OTP and chime.
 */
import { Deque } from './deque.js';
import type { OrderRecord } from './order-record.js';

/** Orders held by the sandbox, with indexes for lookup and paging. */
export class OrderStore {
  readonly #maxOrders: number;
  readonly #byId = new Map<string, OrderRecord>();
  readonly #byOtpId = new Map<string, OrderRecord>();
  readonly #byChimeId = new Map<string, OrderRecord>();
  // Oldest first across every application: the eviction order.
  readonly #all = new Deque<OrderRecord>();
  readonly #byApplication = new Map<string, Deque<OrderRecord>>();
  #createdCount = 0;

  constructor(maxOrders: number) {
    if (!Number.isSafeInteger(maxOrders) || maxOrders < 1) {
      throw new RangeError('maxOrders must be a whole number of at least 1.');
    }
    this.#maxOrders = maxOrders;
  }

  /** Orders held now. */
  get size(): number {
    return this.#byId.size;
  }

  /** Orders ever added, evicted ones included. */
  get createdCount(): number {
    return this.#createdCount;
  }

  /** Adds a new order, evicting the oldest one when full. */
  add(order: OrderRecord): void {
    this.#byId.set(order.id, order);
    if (order.otpId !== undefined) this.#byOtpId.set(order.otpId, order);
    if (order.chimeId !== undefined) this.#byChimeId.set(order.chimeId, order);
    this.#all.push(order);
    let orders = this.#byApplication.get(order.applicationId);
    if (!orders) {
      orders = new Deque<OrderRecord>();
      this.#byApplication.set(order.applicationId, orders);
    }
    orders.push(order);
    this.#createdCount++;
    while (this.#all.length > this.#maxOrders) this.#evictOldest();
  }

  /** The order with this id, of any application. */
  get(orderId: string): OrderRecord | undefined {
    return this.#byId.get(orderId);
  }

  /** The order with this id if it belongs to the application; others' orders are unknown to it. */
  getForApplication(orderId: string, applicationId: string): OrderRecord | undefined {
    const order = this.#byId.get(orderId);
    return order?.applicationId === applicationId ? order : undefined;
  }

  /** The order whose payment issued this OTP, if it belongs to the application. */
  getByOtpId(otpId: string, applicationId: string): OrderRecord | undefined {
    const order = this.#byOtpId.get(otpId);
    return order?.applicationId === applicationId ? order : undefined;
  }

  /** The order this chime belongs to, if it belongs to the application. */
  getByChimeId(chimeId: string, applicationId: string): OrderRecord | undefined {
    const order = this.#byChimeId.get(chimeId);
    return order?.applicationId === applicationId ? order : undefined;
  }

  /** Page `pageNumber` (1 = newest) of an application's orders, at most `pageSize` long. */
  page(applicationId: string, pageNumber: number, pageSize: number): OrderRecord[] {
    const orders = this.#byApplication.get(applicationId);
    if (!orders) return [];
    const skip = (pageNumber - 1) * pageSize;
    // A page past the end is empty: the paging rule then stops.
    if (skip >= orders.length) return [];
    return orders.newestFirst(skip, pageSize);
  }

  #evictOldest(): void {
    const oldest = this.#all.shift();
    if (!oldest) return;
    this.#byId.delete(oldest.id);
    if (oldest.otpId !== undefined) this.#byOtpId.delete(oldest.otpId);
    if (oldest.chimeId !== undefined) this.#byChimeId.delete(oldest.chimeId);
    // The globally oldest order is also the oldest of its application.
    const orders = this.#byApplication.get(oldest.applicationId);
    orders?.shift();
    if (orders?.length === 0) this.#byApplication.delete(oldest.applicationId);
  }
}
