/**
 * Listens for the element's events before the element is defined: a reload
 * can resume an attempt the moment the tag upgrades, before the page's own
 * code has run. Imported first by `main.ts`; events are kept until
 * {@link onPayEvent} subscribes, then handed over in order.
 */
import { PAY_CHECKOUT_EVENT_NAMES } from '../../src/element/events.js';

type Listener = (event: CustomEvent<unknown>) => void;

const early: CustomEvent<unknown>[] = [];
let listener: Listener | undefined;

for (const name of PAY_CHECKOUT_EVENT_NAMES) {
  // Capture on the document: the events bubble and are composed.
  document.addEventListener(
    name,
    (event) => {
      if (!(event instanceof CustomEvent)) return;
      if (listener) listener(event);
      else early.push(event);
    },
    { capture: true },
  );
}

/** Receives every event of the element, those fired before the call included. */
export function onPayEvent(handler: Listener): void {
  listener = handler;
  for (const event of early.splice(0)) handler(event);
}
