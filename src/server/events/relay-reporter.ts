/**
 * How the relay tells the merchant what happened (`onEvent`): every event
 * goes through here, setup warnings once each, and the merchant's hook can
 * never break a checkout. Refusals are reported by the route that answers
 * them (relay-route.ts), once each.
 */
import type { CheckoutRelayEvent, CheckoutRelayEventHandler, RelayWarningCode } from './relay-events.js';

/** The relay's side of `onEvent`. */
export interface RelayReporter {
  /** Sends an event; the hook's throws and rejections are swallowed. */
  emit(event: CheckoutRelayEvent): void;
  /** Sends a setup warning, the first time only. */
  warnOnce(code: RelayWarningCode, message: string, error?: unknown): void;
}

/** A reporter for the merchant's `onEvent` (default: setup warnings on the console). */
export function createRelayReporter(onEvent: CheckoutRelayEventHandler = warnOnConsole): RelayReporter {
  const warned = new Set<RelayWarningCode>();

  function emit(event: CheckoutRelayEvent): void {
    try {
      const result = onEvent(event);
      if (result && typeof result.catch === 'function') result.catch(() => undefined);
    } catch {
      // The merchant's logging must never break a checkout.
    }
  }

  return {
    emit,
    warnOnce(code, message, error) {
      if (warned.has(code)) return;
      warned.add(code);
      emit({ type: 'warning', code, message, ...(error === undefined ? {} : { error }) });
    },
  };
}

/** Without an `onEvent`, setup warnings still reach the merchant's console; nothing else is logged. */
function warnOnConsole(event: CheckoutRelayEvent): void {
  if (event.type === 'warning') console.warn(`pay-checkout relay: ${event.message}`);
}
