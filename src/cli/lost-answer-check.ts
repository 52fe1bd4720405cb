/**
 * A create whose answer was lost: the shopper's network drops after the
 * request left, so the element sends the very request again, with the same
 * `Idempotency-Key` and body. The relay must answer the order the first one
 * made, and the service must have made one order for the two. A relay that
 * remembers an answer only once it was delivered, or calls the service under
 * a key of its own making, charges that shopper twice; only the sandbox's
 * log shows it, so the check needs `--sandbox`.
 */
import { failed, judged } from './check-result.js';
import { type CheckRun, type CreatedOrder, newAttemptKey, perClientSkip } from './check-run.js';
import { checkoutIntentFor } from './checker-shopper.js';
import { isPerClientLimit, type RelayAnswer } from './relay-probe.js';
import { CREATE_ENDPOINT, ordersCreatedIn } from './sandbox-view.js';
import { describeAnswer, orderIdOf } from './wire-expectations.js';

const ID = 'create-lost-answer';
/** Re-sends while the relay says the first is still at work (`409 idempotency_request_in_progress`). */
const MAX_IN_PROGRESS_RETRIES = 5;
const LONGEST_WAIT_MS = 5000;

/**
 * Sends a new attempt for `first`'s number, hangs up, and sends it again once
 * the sandbox has seen the relay's create (or the timeout passed). With a
 * reference, the number's open order is declined first, so the attempt is a
 * new prompt rather than the open order answered again.
 */
export async function checkLostAnswer(run: CheckRun, first: CreatedOrder, timeoutMs: number): Promise<void> {
  const { sandbox } = run;
  if (sandbox === undefined) return run.record(run.withoutSandbox(ID));
  if (first.reference !== null) await run.freeNumber(first.number);
  const request = {
    label: 'the same create again after its answer was lost',
    body: checkoutIntentFor(first.number, run.purchase),
    idempotencyKey: newAttemptKey(),
  };
  const mark = await sandbox.mark();
  await run.probe.hangUp({ ...request, route: 'create', label: 'a create whose answer is lost' });
  await sandbox.waitFor(mark, (received) => received.endpoint === CREATE_ENDPOINT, timeoutMs);
  const answer = await resend(run, request);
  if (isPerClientLimit(answer)) return run.record(perClientSkip(ID, answer));
  const orderId = answer.status === 200 ? orderIdOf(answer) : undefined;
  if (orderId === undefined) {
    return run.record(
      failed(
        ID,
        `${answer.label} → expected 200 with the order the first made, got ${describeAnswer(answer)}`,
      ),
    );
  }
  const made = ordersCreatedIn(await sandbox.since(mark));
  const problems: string[] = [];
  if (made.length > 1) {
    problems.push(
      `the service made ${made.length} orders (${made.join(', ')}) for one attempt: a shopper whose answer is lost is charged twice`,
    );
  } else if (made.length === 1 && made[0] !== orderId) {
    problems.push(`the answer is ${orderId}, but the service made ${made[0]}`);
  }
  run.record(
    judged(ID, problems, `${answer.label} → 200, ${orderId}, the one order the service made for both`),
  );
}

/** The re-send, again after each `409 idempotency_request_in_progress`, as the element would. */
async function resend(
  run: CheckRun,
  request: { label: string; body: unknown; idempotencyKey: string },
): Promise<RelayAnswer> {
  let answer = await run.create(request);
  for (let retry = 0; retry < MAX_IN_PROGRESS_RETRIES && isInProgress(answer); retry++) {
    const seconds = Number(answer.headers.get('retry-after'));
    await run.probe.pause(
      Math.min(LONGEST_WAIT_MS, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000),
    );
    answer = await run.create(request);
  }
  return answer;
}

function isInProgress(answer: RelayAnswer): boolean {
  return answer.status === 409 && describeAnswer(answer).includes('idempotency_request_in_progress');
}
