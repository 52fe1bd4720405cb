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
 * borrowed from an order the run already made, or from a second create
 * paying from another of `numbers`.
 */
export async function checkOtherOrdersToken(
  run: CheckRun,
  first: CreatedOrder,
  numbers: readonly string[],
): Promise<void> {
  let borrowedToken = [...run.lookupTokens].find(([orderId]) => orderId !== first.orderId)?.[1];
  if (borrowedToken === undefined) {
    // Another number: the first one's prompts may be spent, or its open order answered again.
    const number = numbers.find((other) => other !== first.number) ?? first.number;
    const second = await run.create({
      label: `a second create paying from ${number}`,
      body: checkoutIntentFor(number, run.purchase),
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

/** An order id of the service's form that no order has: nothing but the relay under test can ask for it. */
function unknownOrderId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `or_${Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/**
 * Lookups with a forged token and with none, for order ids no order has,
 * answered `403` and never passed on: the sandbox's log must show no lookup
 * of those ids. A relay that asks the service first and checks the token
 * after lends anyone its key to try order ids with (a `404` tells them apart
 * from real ones). Ids of no order, so the relay's own watcher, which looks
 * up the run's real orders, is never mistaken for the fault.
 */
export async function checkForgedNotForwarded(run: CheckRun, first: CreatedOrder): Promise<void> {
  const id = 'lookup-forged-not-forwarded';
  const { sandbox } = run;
  if (sandbox === undefined) return run.record(run.withoutSandbox(id));
  const forgedFor = unknownOrderId();
  const missingFor = unknownOrderId();
  const mark = await sandbox.mark();
  const answers = [
    await run.probe.send({
      label: `lookup of ${forgedFor} with a forged token`,
      route: 'lookup',
      body: { order_id: forgedFor, lookup_token: forgedToken(first.lookupToken) },
    }),
    await run.probe.send({
      label: `lookup of ${missingFor} without a token`,
      route: 'lookup',
      body: { order_id: missingFor },
    }),
  ];
  const limited = answers.find(isPerClientLimit);
  if (limited) return run.record(perClientSkip(id, limited));
  const problems = answers
    .filter((answer) => answer.status !== 403)
    .map((answer) => `${answer.label} → expected 403, got ${describeAnswer(answer)}`);
  const passedOn = (await sandbox.since(mark)).filter(
    (received) => received.order_id === forgedFor || received.order_id === missingFor,
  );
  for (const received of passedOn) {
    problems.push(
      `the service was asked for ${received.order_id} (${received.endpoint} → ${received.status}): check the token before calling the service`,
    );
  }
  run.record(
    judged(id, problems, 'lookups with a forged token and with none → 403, and neither reached the service'),
  );
}
