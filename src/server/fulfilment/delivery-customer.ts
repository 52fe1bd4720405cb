/**
 * Who a delivered order is for: every callback gets the customer to ship to,
 * from the service's order at delivery, never from the journal (which keeps
 * no name or number once the order is known). The lookup that saw the order
 * settle usually left it in hand (customers-in-hand.ts); otherwise the
 * delivery looks the order up once, no sooner than 2 s after it settled, so
 * the service still sees lookups of an order at least 2 s apart.
 *
 * A service that cannot be read at delivery puts the delivery off, as a
 * callback that threw would (2 s, 4 s, 8 s…): the merchant gets the customer
 * rather than a `null` they would have to chase. After `CUSTOMER_READ_TRIES`
 * tries (about a minute) the callback is called with `customer: null`, so an
 * outage of the service never holds back what the journal already knows.
 */
import { timedWait } from '../../shared/answered-within.js';
import type { Claimed, OrderAmount, SettledEntry } from '../journal/journal.js';
import { type CustomersInHand, customerOf, type OrderCustomer } from '../lookups/customers-in-hand.js';
import { LOOKUP_SHARING_MS } from '../lookups/order-lookups.js';
import { serviceTotalOf } from '../orders/service-reading.js';
import type { ServiceClient } from '../service-client/service-client.js';
import { ServiceNotFoundError } from '../service-client/service-errors.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** Tries at reading the customer before a delivery goes ahead without one: about a minute of backoff. */
export const CUSTOMER_READ_TRIES = 6;

/** The service could not be read for the customer: the delivery is tried again later. */
export class CustomerUnavailableError extends Error {
  override name = 'CustomerUnavailableError';
}

/** What a delivery read of its order: the customer, and the service's total when it was looked up. */
export interface DeliveryRead {
  customer: OrderCustomer | null;
  total?: OrderAmount | undefined;
}

/** What reading the customer needs. */
export interface DeliveryReadDeps {
  readonly settings: FulfilmentSettings;
  readonly client: ServiceClient;
  readonly customers: CustomersInHand;
}

/**
 * The customer for the delivery of `entry` (in hand, or looked up); with
 * `needTotal`, always looked up, for the service's total too. Rejects with
 * {@link CustomerUnavailableError} while the service cannot be read and tries are left.
 */
export async function readAtDelivery(
  deps: DeliveryReadDeps,
  entry: Claimed<SettledEntry> & { orderId: string },
  needTotal: boolean,
): Promise<DeliveryRead> {
  const inHand = deps.customers.get(entry.orderId);
  if (inHand && !needTotal) return { customer: inHand };
  await spacedFromSettlement(deps.settings, entry);
  try {
    const { order } = await deps.client.orders.lookup(entry.orderId);
    return { customer: customerOf(order), total: serviceTotalOf(order) };
  } catch (error) {
    // An order the service does not know has no customer to read, now or later.
    if (!needTotal && error instanceof ServiceNotFoundError) return { customer: null };
    if (!needTotal && entry.deliveryAttempts + 1 >= CUSTOMER_READ_TRIES) return { customer: null };
    throw new CustomerUnavailableError(`The service could not be read for order ${entry.orderId}.`, {
      cause: error,
    });
  }
}

/** Waits until 2 s after the order settled (on the journal's clock): the lookup that settled it was before. */
function spacedFromSettlement(settings: FulfilmentSettings, entry: Claimed<SettledEntry>): Promise<void> {
  const waitMs = LOOKUP_SHARING_MS - (entry.claimedAt - entry.settledAt);
  if (waitMs <= 0) return Promise.resolve();
  return timedWait(settings.deliveryTimers, waitMs, () => undefined);
}
