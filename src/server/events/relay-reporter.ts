/**
 * How the relay tells the merchant what happened (`onEvent`): every event
 * goes through here, setup warnings once each, and the merchant's hook can
 * never break a checkout. A refusal the relay throws is reported once: by the
 * handler that knows more (`rate_limited`, `lookup_denied`, `upstream_error`…)
 * or else, as `request_rejected`, by the route that answers it.
 */
import type { HttpError } from '../../http/http-error.js';
import type {
  CheckoutRelayEvent,
  CheckoutRelayEventHandler,
  RelayRoute,
  RelayWarningCode,
} from './relay-events.js';

/** The relay's side of `onEvent`. */
export interface RelayReporter {
  /** Sends an event; the hook's throws and rejections are swallowed. */
  emit(event: CheckoutRelayEvent): void;
  /** Sends a setup warning, the first time only. */
  warnOnce(code: RelayWarningCode, message: string, error?: unknown): void;
  /** Sends `event` about `error` and returns the error to throw; the route will not report it again. */
  report(event: CheckoutRelayEvent, error: HttpError): HttpError;
  /** Sends `request_rejected` for an error no handler reported. */
  rejected(route: RelayRoute | 'unknown', error: HttpError): void;
}

/** A reporter for the merchant's `onEvent` (default: setup warnings on the console). */
export function createRelayReporter(onEvent: CheckoutRelayEventHandler = warnOnConsole): RelayReporter {
  const warned = new Set<RelayWarningCode>();
  const reported = new WeakSet<HttpError>();

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
    report(event, error) {
      reported.add(error);
      emit(event);
      return error;
    },
    rejected(route, error) {
      if (reported.has(error)) return;
      emit({
        type: 'request_rejected',
        route,
        status: error.status,
        code: error.code,
        message: error.message,
        ...(error.param === undefined ? {} : { param: error.param }),
      });
    },
  };
}

/** Without an `onEvent`, setup warnings still reach the merchant's console; nothing else is logged. */
function warnOnConsole(event: CheckoutRelayEvent): void {
  if (event.type === 'warning') console.warn(`pay-checkout relay: ${event.message}`);
}
