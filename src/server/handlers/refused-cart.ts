/**
 * A create whose cart `priceCart` refused (a CartError). For a new attempt
 * that is the answer: a `400` with the merchant's message. But the element
 * resends the very request of an attempt whose earlier tries went unanswered,
 * and one of them may have created an order before the product sold out: the
 * shopper would see the cart error on every retry while the payment prompt is
 * live on their phone. With a journal the relay remembers those tries
 * (contract §6), so it answers the retry as the create would have: the known
 * order, or the recorded create sent again under the same key (the service
 * replays its first answer, or creates it now: the very create the earlier
 * try meant). Without a journal the relay has no memory: the `400` stands.
 */
import type { HttpError } from '../../http/http-error.js';
import type { CheckoutIntent } from '../../shared/wire.js';
import type { RecalledCreate } from '../fulfilment/relay-journal.js';
import { takePromptSlot } from '../limits/relay-limits.js';
import { lookUpAndRecord } from './lookup-order.js';
import {
  answerOrder,
  type CreateContext,
  createAndAnswer,
  journalUnavailable,
  type ServiceCreateBody,
} from './order-creation.js';

/** The answer to a create whose cart was refused with `refusal`: an earlier try's order, or `refusal`. */
export async function answerRefusedCart(
  context: CreateContext,
  intent: CheckoutIntent,
  refusal: HttpError,
): Promise<Response> {
  const { config, journal, idempotencyKey } = context;
  let earlier: RecalledCreate | undefined;
  try {
    earlier = await journal.recall(idempotencyKey);
  } catch (error) {
    // Whether an order exists cannot be told: refused as every create is while the journal fails.
    throw journalUnavailable(error);
  }
  if (earlier === undefined) throw refusal;
  if (earlier.kind === 'created') return answerKnownOrder(context, intent, earlier.orderId);
  // Written by the relay itself from a checked intent; JSON keeps it as it was.
  const createBody = earlier.createBody as ServiceCreateBody;
  // The same key with other shopper details is not a retry of that attempt (the service would say 422).
  if (!sameShopper(createBody, intent)) throw refusal;
  // Counted under the attempt's key: free when the earlier try was counted in the window, as it was.
  await takePromptSlot(config, createBody.customer_data.phone_number, idempotencyKey);
  return createAndAnswer(context, createBody);
}

/** The order an earlier try created, answered as a replay of that create. */
async function answerKnownOrder(
  { config, journal, idempotencyKey }: CreateContext,
  intent: CheckoutIntent,
  orderId: string,
): Promise<Response> {
  const order = await lookUpAndRecord(config, journal, orderId);
  config.reporter.emit({
    type: 'order_created',
    orderId,
    orderStatus: order.status,
    paymentStatus: order.payment.status,
    replayed: true,
    // The journal dropped the body once the order was known, and this try's cart was refused.
    lineItems: [],
    customer: { ...intent.customer_data },
    idempotencyKey,
  });
  return answerOrder(config, order);
}

function sameShopper(createBody: ServiceCreateBody, intent: CheckoutIntent): boolean {
  return (
    JSON.stringify(createBody.customer_data) === JSON.stringify(intent.customer_data) &&
    JSON.stringify(createBody.payment_method_data) === JSON.stringify(intent.payment_method_data)
  );
}
