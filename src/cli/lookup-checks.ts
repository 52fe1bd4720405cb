/**
 * The lookup route: the token of the order answers status
 * fields and nothing else; a forged token, another order's token or none at
 * all is `403`, whatever the order id.
 */
import { judged, skipped } from './check-result.js';
import { type CheckRun, type CreatedOrder, judgeRefusal, newAttemptKey, perClientSkip } from './check-run.js';
import { checkoutIntentFor } from './checker-shopper.js';
import { isPerClientLimit } from './relay-probe.js';
import { describeAnswer, lookupAnswerProblems } from './wire-expectations.js';

const DENIED = { status: 403, code: 'permission_denied' };

/** `token` with its first character changed: the same length, so only a real comparison tells. */
function forgedToken(token: string): string {
  return `${token.startsWith('A') ? 'B' : 'A'}${token.slice(1)}`;
}

/** The lookup with the order's token, then with a forged token and with none. */
export async function checkLookups(run: CheckRun, first: CreatedOrder): Promise<void> {
  const lookup = (label: string, body: unknown) => run.probe.send({ label, route: 'lookup', body });
  const valid = await lookup('lookup with the order’s token', {
    order_id: first.orderId,
    lookup_token: first.lookupToken,
  });
  if (isPerClientLimit(valid)) run.record(perClientSkip('lookup-valid', valid));
  else {
    const problems =
      valid.status === 200
        ? lookupAnswerProblems(valid.json, first.orderId)
        : [`expected 200, got ${describeAnswer(valid)}`];
    const status = (valid.json as { order?: { payment?: { status?: unknown } } } | undefined)?.order?.payment
      ?.status;
    run.record(
      judged(
        'lookup-valid',
        problems,
        `${valid.label} → 200, status fields only (payment ${String(status)})`,
      ),
    );
  }
  const forged = await lookup('lookup with a forged token', {
    order_id: first.orderId,
    lookup_token: forgedToken(first.lookupToken),
  });
  run.record(judgeRefusal('lookup-forged-token', forged, DENIED));
  const missing = await lookup('lookup without a token', { order_id: first.orderId });
  run.record(judgeRefusal('lookup-missing-token', missing, DENIED));
}

/**
 * The first order looked up with another order's token: `403`. The token is
 * borrowed from an order the run already made, or from a second create.
 */
export async function checkOtherOrdersToken(run: CheckRun, first: CreatedOrder): Promise<void> {
  let borrowedToken = [...run.lookupTokens].find(([orderId]) => orderId !== first.orderId)?.[1];
  if (borrowedToken === undefined) {
    const second = await run.create({
      label: `a second create paying from ${first.number}`,
      body: checkoutIntentFor(first.number, run.cart),
      idempotencyKey: newAttemptKey(),
    });
    borrowedToken = [...run.lookupTokens].find(([orderId]) => orderId !== first.orderId)?.[1];
    if (borrowedToken === undefined) {
      const reason = isPerClientLimit(second) ? perClientSkip('', second).detail : describeAnswer(second);
      run.record(skipped('lookup-other-order-token', `no second order to borrow a token from: ${reason}`));
      return;
    }
  }
  const borrowed = await run.probe.send({
    label: 'lookup with another order’s token',
    route: 'lookup',
    body: { order_id: first.orderId, lookup_token: borrowedToken },
  });
  run.record(judgeRefusal('lookup-other-order-token', borrowed, DENIED));
}
