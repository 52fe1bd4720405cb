/**
 * The merchant's-server view: each recent order as the demo's server sees it
 * (`GET /api/demo/fulfilments`), read every 2 s while the page is visible:
 * its status, and its cart's reference, items and amount as `onPaid` gets them.
 * The list is not a live region; one polite status line announces an order
 * only when the server's callback was delivered, so a screen reader hears
 * one short sentence per payment, not every poll.
 */
import { formatAmount } from '../../src/element/format-amount.js';
import { DEMO_FULFILMENTS_PATH, type DemoFulfilments } from '../demo-config.js';
import { createNode } from './dom.js';

/** How often the view reads the server's orders. */
const REFRESH_MS = 2_000;

type Fulfilment = DemoFulfilments['fulfilments'][number];

const CALLBACK_OF: Record<Exclude<Fulfilment['status'], 'pending'>, string> = {
  paid: 'onPaid',
  failed: 'onFailed',
  expired: 'onExpired',
};

/** What the server knows of one order, in words. */
export function describeFulfilment(fulfilment: Fulfilment): string {
  if (fulfilment.status === 'pending') return 'Created; the server is watching it';
  const settled = { paid: 'Paid', failed: 'Failed', expired: 'Expired' }[fulfilment.status];
  const callback = CALLBACK_OF[fulfilment.status];
  if (fulfilment.delivered_at === null) return `${settled}; calling ${callback}`;
  return `${settled}; delivered to ${callback} at ${fulfilment.delivered_at.slice(11, 19)} UTC`;
}

/** What the order was for, in words: its cart, the items and the amount charged. */
export function describeOrder(fulfilment: Fulfilment): string {
  const items = fulfilment.items.map((item) => `${item.quantity} × ${item.name}`).join(', ');
  const amount = fulfilment.amount && formatAmount(fulfilment.amount.value, fulfilment.amount.currency, 'en');
  return [fulfilment.reference ?? 'no reference', items, amount].filter(Boolean).join(' · ');
}

/** The view, bound to its list and its status line. */
export class FulfilmentView {
  readonly #list: HTMLOListElement;
  readonly #status: HTMLElement;
  /** Orders already delivered when last read: only new deliveries are announced. */
  #delivered: Set<string> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(list: HTMLOListElement, status: HTMLElement) {
    this.#list = list;
    this.#status = status;
  }

  /** Reads now, then every 2 s while the page is visible. */
  start(): void {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') void this.#refresh();
    });
    void this.#refresh();
  }

  async #refresh(): Promise<void> {
    clearTimeout(this.#timer);
    try {
      const response = await fetch(DEMO_FULFILMENTS_PATH, { headers: { accept: 'application/json' } });
      if (response.ok) this.#render(((await response.json()) as DemoFulfilments).fulfilments);
    } catch {
      // The server is restarting or offline: the next read will tell.
    }
    if (document.visibilityState === 'visible')
      this.#timer = setTimeout(() => void this.#refresh(), REFRESH_MS);
  }

  #render(fulfilments: Fulfilment[]): void {
    this.#list.replaceChildren(
      ...fulfilments.map((fulfilment) =>
        createNode('li', { className: 'fulfilment', attributes: { 'data-status': fulfilment.status } }, [
          createNode('code', { className: 'fulfilment__id' }, [fulfilment.order_id]),
          createNode('span', { className: 'fulfilment__state' }, [describeFulfilment(fulfilment)]),
          createNode('span', { className: 'fulfilment__order' }, [describeOrder(fulfilment)]),
        ]),
      ),
    );
    const delivered = new Set(fulfilments.filter((f) => f.delivered_at !== null).map((f) => f.order_id));
    const fresh = this.#delivered
      ? fulfilments.filter((f) => delivered.has(f.order_id) && !this.#delivered?.has(f.order_id))
      : [];
    this.#delivered = new Set([...(this.#delivered ?? []), ...delivered]);
    const newest = fresh[0];
    if (newest) this.#status.textContent = `Your server heard: ${describeFulfilment(newest)}.`;
  }
}
