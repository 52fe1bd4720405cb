/**
 * The payment-prompt limit: at most 3 creates for one number in
 * 10 minutes, whoever sends them; the 4th is `429 too_many_payment_requests`
 * with `param` naming the number and a `Retry-After`. The run's earlier orders
 * for the number count, so a relay that made extra orders (no idempotency)
 * is judged on the prompts it really sent.
 */
import { type CheckResult, failed, judged } from './check-result.js';
import { type CheckRun, type CreatedOrder, judgeRefusal, newAttemptKey, perClientSkip } from './check-run.js';
import { checkoutIntentFor } from './checker-shopper.js';
import { isPerClientLimit, type RelayAnswer } from './relay-probe.js';
import { describeAnswer } from './wire-expectations.js';

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
 * the count, and the checker must not flood it.
 */
export async function checkPromptLimit(run: CheckRun, first: CreatedOrder): Promise<void> {
  let answer: RelayAnswer | undefined;
  let accepted = run.ordersOf(first.number).size;
  for (let sent = 0; accepted <= PROMPTS_PER_NUMBER && sent <= PROMPTS_PER_NUMBER; sent++) {
    answer = await run.create({
      label: `create no. ${accepted + 1} for ${first.number} within 10 minutes`,
      body: checkoutIntentFor(first.number, run.cart),
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
