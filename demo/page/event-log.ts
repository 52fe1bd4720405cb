/**
 * The live log of the element's events: name, time since the page opened and
 * the `detail`, newest last, so a visitor sees exactly what a merchant's page
 * can listen to.
 */
import { createNode } from './dom.js';

/** Entries kept; older ones scroll away. */
const MAX_ENTRIES = 60;
/** Longest string shown in a detail; a customer name or an order can be long. */
const MAX_STRING_LENGTH = 80;

/** The log, bound to an `<ol>`. */
export class EventLog {
  readonly #list: HTMLOListElement;
  readonly #startedAt: number;

  constructor(list: HTMLOListElement, startedAt = performance.now()) {
    this.#list = list;
    this.#startedAt = startedAt;
  }

  /** Adds an entry for event `type` with its `detail`. */
  add(type: string, detail: unknown): void {
    const seconds = ((performance.now() - this.#startedAt) / 1000).toFixed(1);
    const entry = createNode('li', { className: 'event-log__entry', attributes: { 'data-event': type } }, [
      createNode('span', { className: 'event-log__time' }, [`${seconds} s`]),
      createNode('span', { className: `event-log__name event-log__name--${type}` }, [type]),
      createNode('code', { className: 'event-log__detail' }, [describeDetail(detail)]),
    ]);
    this.#list.append(entry);
    while (this.#list.children.length > MAX_ENTRIES) this.#list.firstElementChild?.remove();
    // Follow the newest entry in the scrolling log, without moving the page.
    const scroller = this.#list.parentElement;
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }

  /** Empties the log. */
  clear(): void {
    this.#list.replaceChildren();
  }
}

/** A compact one-line rendering of an event's `detail`. */
export function describeDetail(detail: unknown): string {
  if (detail === undefined || detail === null) return '';
  return JSON.stringify(detail, (_key, value: unknown) =>
    typeof value === 'string' && value.length > MAX_STRING_LENGTH
      ? `${value.slice(0, MAX_STRING_LENGTH - 1)}…`
      : value,
  );
}
