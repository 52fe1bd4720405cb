/**
 * The payment prompts one number may get. Per checkout: a second create for
 * the same cart (the merchant's reference) and number, under a new key, while
 * the first's prompt is open, answers the first's order rather than sending
 * the phone a second prompt. Per number: at most 3 creates in 10 minutes,
 * whoever sends them; the 4th is `429 too_many_payment_requests` with `param`
 * naming the number and a `Retry-After`. The run's earlier orders for the
 * number count, so a relay that made extra orders (no idempotency) is judged
 * on the prompts it really sent.
 */
import { advised, type CheckResult, failed, judged } from './check-result.js';
import { type CheckRun, type CreatedOrder, judgeRefusal, newAttemptKey, perClientSkip } from './check-run.js';
import { checkoutIntentFor } from './checker-shopper.js';
import { isPerClientLimit, type RelayAnswer } from './relay-probe.js';
import { ordersCreatedIn } from './sandbox-view.js';
import { describeAnswer, orderIdOf } from './wire-expectations.js';

/** Prompts one number may get in the window. */
const PROMPTS_PER_NUMBER = 3;
const PROMPT_LIMIT = {
  status: 429,
  code: 'too_many_payment_requests',
  param: 'payment_method_data.mobile_money.number',
};

/**
 * Creates for the first order's number until the relay refuses one, then
 * judges the refusal. Bounded by creates sent, not only by orders counted: a
 * relay that answers a new attempt with an order it gave before never grows
 * the count, and the checker must not flood it. With a reference, a
 * conforming relay answers the number's open order, so each open order is
 * declined through the sandbox first (not run, with the reason, without one).
 */
export async function checkPromptLimit(run: CheckRun, first: CreatedOrder): Promise<void> {
  if (first.reference !== null && run.sandbox === undefined) {
    const why = `with the cart's reference (${first.reference}) each create for ${first.number} answers its open order`;
    return run.record(
      run.withoutSandbox(
        'prompt-limit',
        `${why}; ${run.sandboxMissing}, and to decline that order between creates`,
      ),
    );
  }
  let answer: RelayAnswer | undefined;
  let accepted = run.ordersOf(first.number).size;
  for (let sent = 0; accepted <= PROMPTS_PER_NUMBER && sent <= PROMPTS_PER_NUMBER; sent++) {
    // The open prompt declined, the number is free: the next create is a new prompt, counted.
    if (first.reference !== null) await run.freeNumber(first.number);
    answer = await run.create({
      label: `create no. ${accepted + 1} for ${first.number} within 10 minutes`,
      body: checkoutIntentFor(first.number, run.purchase),
      idempotencyKey: newAttemptKey(),
    });
    if (answer.status !== 200) break;
    accepted += 1;
  }
  run.record(judgePromptLimit(run, first.number, answer, accepted));
}

function judgePromptLimit(
  run: CheckRun,
  number: string,
  answer: RelayAnswer | undefined,
  accepted: number,
): CheckResult {
  if (answer === undefined || answer.status === 200) {
    const orders = run.ordersOf(number).size;
    const reused = orders < accepted ? ` (${accepted - orders} answered with an order given before)` : '';
    return failed(
      'prompt-limit',
      `${accepted} creates for ${number} within 10 minutes, each with a new key, were all accepted${reused} (at most ${PROMPTS_PER_NUMBER}, then 429)`,
    );
  }
  if (isPerClientLimit(answer)) return perClientSkip('prompt-limit', answer);
  const refusal = judgeRefusal('prompt-limit', answer, PROMPT_LIMIT);
  const retryAfter = answer.headers.get('retry-after');
  const problems = refusal.verdict === 'fail' ? [refusal.detail] : [];
  if (retryAfter === null || !/^\s*\d+\s*$|GMT\s*$/.test(retryAfter)) {
    problems.push(`the 429 has no Retry-After in seconds or as a date (got ${retryAfter ?? 'none'})`);
  }
  return judged(
    'prompt-limit',
    problems,
    `after ${accepted} prompts to ${number}, the next create → ${describeAnswer(answer)}, Retry-After ${retryAfter} s`,
  );
}

const SAME_CHECKOUT = 'prompt-same-checkout';

/**
 * A second create for the cart and number of the run's open order, under a
 * new key: the open order again, and (read from the sandbox) no order made.
 */
export async function checkSameCheckout(run: CheckRun, first: CreatedOrder): Promise<void> {
  if (first.reference === null) {
    return run.record(
      advised(
        SAME_CHECKOUT,
        'not checked: the cart is priced with no reference, so two creates cannot be told to be one checkout; give --cart a cart your pricing gives a reference to',
      ),
    );
  }
  const open = [...run.ordersOf(first.number)].at(-1) as string;
  const mark = await run.sandbox?.mark();
  const answer = await run.create({
    label: `a second create for reference ${first.reference} and ${first.number}, under a new key`,
    body: checkoutIntentFor(first.number, run.purchase),
    idempotencyKey: newAttemptKey(),
  });
  if (isPerClientLimit(answer)) return run.record(perClientSkip(SAME_CHECKOUT, answer));
  const orderId = answer.status === 200 ? orderIdOf(answer) : undefined;
  const problems: string[] = [];
  if (orderId === undefined) {
    problems.push(`expected 200 with the open order ${open}, got ${describeAnswer(answer)}`);
  } else if (orderId !== open) {
    problems.push(
      `another order (${orderId}, not ${open}): the phone gets a second prompt for one checkout while the first is open`,
    );
  }
  const made = mark === undefined || !run.sandbox ? [] : ordersCreatedIn(await run.sandbox.since(mark));
  if (made.length > 0 && orderId === open) problems.push(`the service made ${made.join(', ')} all the same`);
  run.record(
    judged(SAME_CHECKOUT, problems, `${answer.label} → 200, the open order ${open}, no second prompt`),
  );
}
