/**
 * `pay-checkout check-relay`'s checks: drives a merchant's relay, in any
 * language, through the wire and the limits of a relay, the way
 * `<pay-checkout>` and a hostile client would, and judges each answer.
 */
import { RELAY_MAX_BODY_BYTES } from '../server/handlers/handler-config.js';
import { auditRun } from './answer-audits.js';
import { allConform, type CheckResult, failed, judged, skipped } from './check-result.js';
import {
  type CheckRun,
  type CreatedOrder,
  type CreateProbe,
  judgeRefusal,
  newAttemptKey,
  type OrderAmountJson,
  perClientSkip,
  startRun,
} from './check-run.js';
import {
  CHECKER_NUMBER_OUTCOMES,
  CHECKER_NUMBERS,
  checkoutIntentFor,
  OTHER_NAME,
} from './checker-shopper.js';
import { checkForgedNotForwarded, checkLookups, checkOtherOrdersToken } from './lookup-checks.js';
import { checkLostAnswer } from './lost-answer-check.js';
import { checkExpectedAmount, checkPriceRoute, isAmount } from './price-checks.js';
import { checkPromptLimit, checkSameCheckout } from './prompt-limit-check.js';
import {
  createRelayProbe,
  isPerClientLimit,
  type RelayProbeOptions,
  RelayUnreachableError,
} from './relay-probe.js';
import { openSandboxView, SandboxUnreadableError } from './sandbox-view.js';
import {
  createAnswerProblems,
  describeAnswer,
  type ExpectedError,
  lookupTokenOf,
  orderIdOf,
  quotedMessage,
} from './wire-expectations.js';

/**
 * Creates one run sends to a conforming relay, with `--sandbox` and a cart
 * with a reference: five refusals, the order, its lost answer and re-send,
 * its replay and its reuse, one off its price, one more for its checkout,
 * and the number's last prompt and the one refused. The relay's per-client
 * limit (10 at once, then one every 6 s, by default) asks for a few short waits.
 */
export const PLANNED_CREATES = 15;

/** Options of {@link checkRelay}. */
export interface CheckRelayOptions extends Omit<RelayProbeOptions, 'notice'> {
  /** A cart the relay's pricing accepts (`null` by default). */
  cart?: unknown;
  /** A server-created checkout's client secret, paid instead of `cart`. */
  checkout?: string;
  /** The test numbers to pay from, tried in order; default {@link CHECKER_NUMBERS}. */
  numbers?: readonly string[];
  /** Told each result as soon as it is known. */
  onResult?: (result: CheckResult) => void;
  /** Told what the run does besides checking: a wait, another number. */
  onNote?: (message: string) => void;
  /** The base URL of the sandbox the relay calls, whose control surface shows what reached the service. */
  sandboxUrl?: string;
}

/** What {@link checkRelay} found. */
export interface CheckRelayReport {
  results: CheckResult[];
  /** Creates sent, retries after a wait included. */
  createsSent: number;
  /** Every check passed (advice aside). */
  conforms: boolean;
}

/** The checks that need the first order; skipped, with the reason, when there is none. */
const NEEDS_AN_ORDER = [
  'create-lost-answer',
  'create-replay',
  'create-key-reused',
  'create-expected-amount',
  'lookup-valid',
  'lookup-forged-token',
  'lookup-missing-token',
  'lookup-forged-not-forwarded',
  'prompt-same-checkout',
  'prompt-limit',
  'lookup-other-order-token',
];

/** Runs every check against the relay at `options.baseUrl`. */
export async function checkRelay(options: CheckRelayOptions): Promise<CheckRelayReport> {
  const results: CheckResult[] = [];
  const numbers = options.numbers ?? CHECKER_NUMBERS;
  const note = (message: string) => options.onNote?.(message);
  const probe = createRelayProbe({ ...options, notice: note });
  const purchase =
    options.checkout === undefined ? { cart: options.cart ?? null } : { checkout: options.checkout };
  const run = startRun(probe, purchase, note, (result) => {
    results.push(result);
    options.onResult?.(result);
  });
  try {
    await checkRefusals(run, numbers[0] ?? (CHECKER_NUMBERS[0] as string));
    const priced = await checkPriceRoute(run);
    const sandboxMark = await openSandbox(run, options);
    const first = await createFirstOrder(run, numbers, priced.reference);
    if (first === undefined) {
      for (const id of NEEDS_AN_ORDER) run.record(skipped(id, 'needs the order of create-valid'));
    } else {
      await confirmSandbox(run, first, sandboxMark);
      await checkOrderFlows(run, first, priced.amount, options.timeoutMs ?? 15_000);
      await checkOtherOrdersToken(run, first, numbers);
      // Declined, the run's orders leave no open prompt for the next run to meet.
      for (const number of numbers) await run.freeNumber(number);
    }
  } catch (error) {
    // A sandbox that stops answering mid-run stops the run: what it would have shown is unknown.
    if (error instanceof SandboxUnreadableError)
      run.record(skipped('sandbox', `${error.message}: the run stopped there`));
    else if (error instanceof RelayUnreachableError) run.record(failed('reachable', error.message));
    else throw error;
  }
  // With no answer at all there is nothing to audit: `reachable` says why.
  if (probe.answers.length > 0) {
    for (const result of auditRun(options.baseUrl, probe.answers, numbers)) run.record(result);
  }
  return { results, createsSent: probe.createsSent, conforms: allConform(results) };
}

/** The checks on the first order, in an order that keeps each one's premise: see each check's module. */
async function checkOrderFlows(
  run: CheckRun,
  first: CreatedOrder,
  priced: OrderAmountJson | undefined,
  timeoutMs: number,
): Promise<void> {
  await checkLostAnswer(run, first, timeoutMs);
  await checkReplayAndReuse(run, first);
  await checkExpectedAmount(run, first, priced);
  await checkLookups(run, first);
  await checkForgedNotForwarded(run, first);
  await checkSameCheckout(run, first);
  await checkPromptLimit(run, first);
}

/** Connects to `--sandbox` when given; the mark create-valid's order is looked for after. A sandbox that does not answer is noted, its checks skipped. */
async function openSandbox(run: CheckRun, options: CheckRelayOptions): Promise<number | undefined> {
  if (options.sandboxUrl === undefined) return undefined;
  try {
    run.sandbox = await openSandboxView(options.sandboxUrl, options.timeoutMs ?? 15_000);
    return await run.sandbox.mark();
  } catch (error) {
    if (!(error instanceof SandboxUnreadableError)) throw error;
    run.sandboxMissing = error.message;
    run.note(`${error.message}: the checks that read it are skipped`);
    return undefined;
  }
}

/** The sandbox is the relay's only when it made create-valid's order; else its checks are skipped, with the reason. */
async function confirmSandbox(run: CheckRun, first: CreatedOrder, mark: number | undefined): Promise<void> {
  const { sandbox } = run;
  if (sandbox === undefined || mark === undefined) return;
  const seen = (await sandbox.since(mark)).some((received) => received.order_id === first.orderId);
  if (seen) return;
  run.sandbox = undefined;
  run.sandboxMissing = `the relay does not call the sandbox at ${sandbox.url}: create-valid's order ${first.orderId} is not in its log`;
  run.note(`${run.sandboxMissing}; the checks that read it are skipped`);
}

/** The five creates the relay must refuse before doing anything. */
async function checkRefusals(run: CheckRun, number: string): Promise<void> {
  const intent = checkoutIntentFor(number, run.purchase);
  const invalid: ExpectedError = { status: 400, code: 'invalid_request' };
  const refusal = async (id: string, request: CreateProbe, expected: ExpectedError) => {
    try {
      run.record(judgeRefusal(id, await run.create(request), expected));
    } catch (error) {
      // A relay (or a proxy before it) that hangs up on a refused body fails that check, not the run;
      // the very first request failing means nothing answers at all.
      if (!(error instanceof RelayUnreachableError) || run.probe.answers.length === 0) throw error;
      run.record(failed(id, error.message));
    }
  };
  await refusal('create-without-key', { label: 'create without Idempotency-Key', body: intent }, invalid);
  await refusal(
    'create-malformed-key',
    { label: 'create with Idempotency-Key "bad key!"', body: intent, idempotencyKey: 'bad key!' },
    invalid,
  );
  await refusal(
    'create-not-json',
    {
      label: 'create as text/plain',
      body: 'not json',
      idempotencyKey: newAttemptKey(),
      contentType: 'text/plain',
    },
    { status: 415, code: 'unsupported_media_type' },
  );
  // One byte over the limit; and, were it read, no order: it has no payment method.
  const oversized = JSON.stringify({ padding: 'x'.repeat(RELAY_MAX_BODY_BYTES - 13) });
  await refusal(
    'create-too-large',
    { label: `create of ${oversized.length} bytes`, body: oversized, idempotencyKey: newAttemptKey() },
    { status: 413, code: 'payload_too_large' },
  );
  const withoutNumber = checkoutIntentFor(number, run.purchase);
  delete (withoutNumber.payment_method_data.mobile_money as { number?: string }).number;
  await refusal(
    'create-invalid-input',
    { label: 'create without the mobile-money number', body: withoutNumber, idempotencyKey: newAttemptKey() },
    { ...invalid, param: 'payment_method_data.mobile_money.number' },
  );
}

/**
 * The order the later checks use. A number whose three prompts an earlier run
 * spent within ten minutes answers `429 too_many_payment_requests`: the limit
 * at work, so the next test number is tried.
 */
async function createFirstOrder(
  run: CheckRun,
  numbers: readonly string[],
  pricedReference: string | null,
): Promise<CreatedOrder | undefined> {
  for (const number of numbers) {
    const body = checkoutIntentFor(number, run.purchase);
    const idempotencyKey = newAttemptKey();
    const outcome = CHECKER_NUMBER_OUTCOMES[number] ?? 'a test number';
    const answer = await run.create({
      label: `create paying from ${number} (${outcome})`,
      body,
      idempotencyKey,
    });
    if (answer.status === 429 && !isPerClientLimit(answer)) {
      const wait = answer.headers.get('retry-after') ?? '?';
      run.note(
        `${number} is refused (${describeAnswer(answer)}, Retry-After ${wait} s): its prompts were spent by an earlier run`,
      );
      continue;
    }
    if (isPerClientLimit(answer)) return void run.record(perClientSkip('create-valid', answer));
    const orderId = orderIdOf(answer);
    const lookupToken = lookupTokenOf(answer);
    const problems =
      answer.status === 200
        ? createAnswerProblems(answer.json)
        : [
            `expected 200, got ${describeAnswer(answer)}${quotedMessage(answer)}${answer.status === 400 ? ' (is --cart a cart your pricing accepts?)' : ''}`,
          ];
    const payment = (answer.json as { order?: { payment?: { status?: unknown } } } | undefined)?.order
      ?.payment?.status;
    run.record(
      judged('create-valid', problems, `${answer.label} → 200, order ${orderId}, payment ${String(payment)}`),
    );
    if (problems.length > 0 || orderId === undefined || lookupToken === undefined) return undefined;
    const json = answer.json as { reference?: unknown; order?: { amount?: unknown } };
    // A relay from before creates answered the reference still keeps it: the price route's says which.
    const reference =
      'reference' in json ? (typeof json.reference === 'string' ? json.reference : null) : pricedReference;
    const amount = isAmount(json.order?.amount) ? json.order.amount : undefined;
    return { orderId, lookupToken, idempotencyKey, number, body, reference, amount };
  }
  run.record(
    skipped(
      'create-valid',
      'every test number is over its prompt limit from earlier runs: wait, or restart the relay',
    ),
  );
  return undefined;
}

/** The same attempt again: the same order; the same key with another body: `422`. */
async function checkReplayAndReuse(run: CheckRun, first: CreatedOrder): Promise<void> {
  const replay = await run.create({
    label: 'replay with the same key and body',
    body: first.body,
    idempotencyKey: first.idempotencyKey,
  });
  const replayedId = replay.status === 200 ? orderIdOf(replay) : undefined;
  if (isPerClientLimit(replay)) run.record(perClientSkip('create-replay', replay));
  else if (replay.status !== 200) {
    run.record(
      failed('create-replay', `expected 200 and order ${first.orderId}, got ${describeAnswer(replay)}`),
    );
  } else if (replayedId !== first.orderId) {
    const detail = `another order (${replayedId ?? 'none'}, not ${first.orderId}): a retry would charge the shopper twice`;
    run.record(failed('create-replay', detail));
  } else {
    run.record(judged('create-replay', [], `${replay.label} → 200, the same order ${first.orderId}`));
  }
  const reused = await run.create({
    label: 'the same key with another body',
    body: checkoutIntentFor(first.number, run.purchase, OTHER_NAME),
    idempotencyKey: first.idempotencyKey,
  });
  run.record(judgeRefusal('create-key-reused', reused, { status: 422, code: 'idempotency_key_reused' }));
}
