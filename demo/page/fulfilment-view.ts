/**
 * The merchant's-server view: each recent order as the demo's server sees it
 * (`GET /api/demo/fulfilments`), read every 2 s while the page is visible:
 * its status, and its cart's reference, items and amount as `onPaid` gets
 * them, and a warning when one checkout was paid twice. The list is not a live region; one polite status line announces an order
 * only when the server's callback was delivered, so a screen reader hears
 * one short sentence per payment, not every poll. Each order also lists its
 * signed webhook events to the demo server's own receiver: event id, type,
 * where it stands, and each attempt's status and time.
 */
import { DEMO_FULFILMENTS_PATH, type DemoFulfilments } from '../demo-config.js';
import { createNode } from './dom.js';
import type { PageText } from './page-text.js';

/** How often the view reads the server's orders. */
const REFRESH_MS = 2_000;

type Fulfilment = DemoFulfilments['fulfilments'][number];

const CALLBACK_OF: Record<Exclude<Fulfilment['status'], 'pending'>, string> = {
  paid: 'onPaid',
  failed: 'onFailed',
  expired: 'onExpired',
};

/** What the server knows of one order, in the page's words. */
export function describeFulfilment(fulfilment: Fulfilment, text: PageText): string {
  if (fulfilment.status === 'pending') return text.watching;
  const settled = text.settled[fulfilment.status];
  const callback = CALLBACK_OF[fulfilment.status];
  if (fulfilment.delivered_at === null) return text.calling(settled, callback);
  return text.delivered(settled, callback, fulfilment.delivered_at.slice(11, 19));
}

/** An order's list item attributes: its status, and a mark when its checkout was paid twice. */
function fulfilmentAttributes(fulfilment: Fulfilment): Record<string, string> {
  return fulfilment.paid_twice
    ? { 'data-status': fulfilment.status, 'data-paid-twice': '' }
    : { 'data-status': fulfilment.status };
}

/** An order's webhook events, each with its attempts; nothing when it has none. */
function webhookList(webhooks: Fulfilment['webhooks'], text: PageText): HTMLOListElement | undefined {
  if (webhooks.length === 0) return undefined;
  return createNode(
    'ol',
    { className: 'fulfilment__webhooks', attributes: { 'aria-label': text.webhooksLabel } },
    webhooks.map((webhook) =>
      createNode('li', { className: 'fulfilment__webhook', attributes: { 'data-state': webhook.state } }, [
        createNode('code', { className: 'fulfilment__event-id' }, [webhook.event_id]),
        ' ',
        createNode('span', { className: 'fulfilment__event-type' }, [webhook.type]),
        ' · ',
        createNode('span', { className: 'fulfilment__event-state' }, [text.webhookState[webhook.state]]),
        createNode(
          'ol',
          { className: 'fulfilment__attempts' },
          webhook.attempts.map((attempt) =>
            createNode('li', { className: 'fulfilment__attempt' }, [
              text.webhookAttempt(attempt.attempt, attempt.status, attempt.at.slice(11, 19)),
            ]),
          ),
        ),
      ]),
    ),
  );
}

/** The view, bound to its list and its status line. */
export class FulfilmentView {
  readonly #list: HTMLOListElement;
  readonly #status: HTMLElement;
  readonly #text: () => PageText;
  /** Orders already delivered when last read: only new deliveries are announced. */
  #delivered: Set<string> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `text` is read at each render: the page may switch language. */
  constructor(list: HTMLOListElement, status: HTMLElement, text: () => PageText) {
    this.#list = list;
    this.#status = status;
    this.#text = text;
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
    const text = this.#text();
    this.#list.replaceChildren(
      ...fulfilments.map((fulfilment) =>
        createNode('li', { className: 'fulfilment', attributes: fulfilmentAttributes(fulfilment) }, [
          createNode('code', { className: 'fulfilment__id' }, [fulfilment.order_id]),
          createNode('span', { className: 'fulfilment__state' }, [describeFulfilment(fulfilment, text)]),
          createNode('span', { className: 'fulfilment__order' }, [text.orderFor(fulfilment)]),
          ...(fulfilment.paid_twice
            ? [
                createNode('strong', { className: 'fulfilment__twice' }, [
                  text.paidTwice(fulfilment.other_paid_order_ids),
                ]),
              ]
            : []),
          webhookList(fulfilment.webhooks ?? [], text),
        ]),
      ),
    );
    const delivered = new Set(fulfilments.filter((f) => f.delivered_at !== null).map((f) => f.order_id));
    const fresh = this.#delivered
      ? fulfilments.filter((f) => delivered.has(f.order_id) && !this.#delivered?.has(f.order_id))
      : [];
    this.#delivered = new Set([...(this.#delivered ?? []), ...delivered]);
    const newest = fresh[0];
    if (newest) this.#status.textContent = text.heard(describeFulfilment(newest, text));
  }
}
