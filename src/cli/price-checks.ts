/**
 * The price route and `expected_amount`: what the shopper is shown before
 * any prompt is what the create charges. `<base>/price` answers the total,
 * each line item's name, quantity and unit price, and the merchant's
 * reference, never the metadata that stays on the server; a create whose
 * `expected_amount` is not the relay's price is `409 amount_changed` with the
 * relay's amount beside the error, and no order is made.
 */
import { REFERENCE_PATTERN } from '../shared/wire.js';
import { type CheckResult, failed, judged, skipped } from './check-result.js';
import {
  type CheckRun,
  type CreatedOrder,
  newAttemptKey,
  type OrderAmountJson,
  perClientSkip,
} from './check-run.js';
import { checkoutIntentFor } from './checker-shopper.js';
import { isPerClientLimit, type RelayAnswer } from './relay-probe.js';
import { ordersCreatedIn } from './sandbox-view.js';
import { describeAnswer, errorProblems } from './wire-expectations.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for `{ currency, value }` of a lowercase code and whole minor units, nothing else. */
export function isAmount(value: unknown): value is OrderAmountJson {
  return (
    isObject(value) &&
    typeof value.currency === 'string' &&
    /^[a-z]{3}$/.test(value.currency) &&
    Number.isSafeInteger(value.value) &&
    (value.value as number) >= 0 &&
    Object.keys(value).length === 2
  );
}

function sameAmount(a: OrderAmountJson, b: OrderAmountJson): boolean {
  return a.currency === b.currency && a.value === b.value;
}

function formatAmount(amount: OrderAmountJson): string {
  return `${amount.value} ${amount.currency}`;
}

/** Problems of one `line_items[i]`: `{ name, quantity, unit_price }` only. */
function lineItemProblems(item: unknown, index: number): string[] {
  const at = `line_items[${index}]`;
  if (!isObject(item)) return [`${at} is not an object`];
  const problems: string[] = [];
  if (typeof item.name !== 'string' || item.name === '') problems.push(`${at}.name is not a name`);
  if (!Number.isSafeInteger(item.quantity) || (item.quantity as number) < 1) {
    problems.push(`${at}.quantity is not a whole number of at least 1`);
  }
  if (!isAmount(item.unit_price)) problems.push(`${at}.unit_price is not { currency, value }`);
  for (const key of Object.keys(item).filter((key) => !['name', 'quantity', 'unit_price'].includes(key))) {
    problems.push(`${at}.${key} is not a field of the price answer`);
  }
  return problems;
}

/** Problems of a price answer, `{ amount, line_items, reference }`; the amount is the sum of the lines. */
export function priceAnswerProblems(json: unknown): string[] {
  if (!isObject(json)) return ['the body is not a JSON object'];
  const problems: string[] = [];
  if ('metadata' in json)
    problems.push('metadata is in the answer: it stays on the server, never in a browser');
  if (!isAmount(json.amount)) problems.push('amount is not { currency, value } in whole minor units');
  const lines = Array.isArray(json.line_items) ? json.line_items : undefined;
  if (lines === undefined) problems.push('line_items is not an array');
  else problems.push(...lines.flatMap(lineItemProblems));
  if (json.reference !== null && !REFERENCE_PATTERN.test(String(json.reference))) {
    problems.push('reference is neither null nor 1–64 characters of A-Z, a-z, 0-9, _ . : and -');
  }
  for (const key of Object.keys(json).filter((key) => !['amount', 'line_items', 'reference'].includes(key))) {
    if (key !== 'metadata') problems.push(`${key} is not a field of the price answer`);
  }
  if (problems.length === 0) {
    const amount = json.amount as OrderAmountJson;
    const sum = (lines as { quantity: number; unit_price: OrderAmountJson }[]).reduce(
      (total, line) => total + line.quantity * line.unit_price.value,
      0,
    );
    if (sum !== amount.value)
      problems.push(`amount.value is ${amount.value}, the line items add up to ${sum}`);
  }
  return problems;
}

/** What the price route said of the cart, when it answered. */
export interface RelayPrice {
  amount: OrderAmountJson | undefined;
  reference: string | null;
}

/** The price route: `POST <base>/price { cart }`; its amount (for `expected_amount`) and reference. */
export async function checkPriceRoute(run: CheckRun): Promise<RelayPrice> {
  const answer = await run.probe.send({
    label: 'cart' in run.purchase ? 'price of the cart' : 'price of the checkout',
    route: 'price',
    body: run.purchase,
  });
  run.record(judgePrice(answer));
  const json = answer.status === 200 && isObject(answer.json) ? answer.json : {};
  return {
    amount: isAmount(json.amount) ? json.amount : undefined,
    reference: typeof json.reference === 'string' ? json.reference : null,
  };
}

function linesOf(lines: unknown): string {
  const count = Array.isArray(lines) ? lines.length : 0;
  return `${count} line item${count === 1 ? '' : 's'}`;
}

function judgePrice(answer: RelayAnswer): CheckResult {
  if (isPerClientLimit(answer)) return perClientSkip('price-route', answer);
  if (answer.status !== 200) {
    const missing =
      answer.status === 404 || answer.status === 405 ? ': is there a price route at <base-url>/price?' : '';
    return failed(
      'price-route',
      `${answer.label} → expected 200 with { amount, line_items, reference }, got ${describeAnswer(answer)}${missing}`,
    );
  }
  const json = answer.json as Json;
  const detail = isAmount(json?.amount)
    ? `${answer.label} → 200, ${formatAmount(json.amount)}, ${linesOf(json.line_items)}, reference ${String(json.reference)}`
    : '';
  return judged('price-route', priceAnswerProblems(answer.json), detail);
}

/**
 * A create whose `expected_amount` is one minor unit off the relay's price:
 * `409 amount_changed` carrying the relay's amount, and (read from the
 * sandbox) no order made. The price is the price route's, or create-valid's.
 */
export async function checkExpectedAmount(
  run: CheckRun,
  first: CreatedOrder,
  priced: OrderAmountJson | undefined,
): Promise<void> {
  const id = 'create-expected-amount';
  const amount = priced ?? first.amount;
  if (amount === undefined) {
    return run.record(
      skipped(id, 'neither the price route nor create-valid answered an amount to be off by one from'),
    );
  }
  const problems: string[] = [];
  if (priced && first.amount && !sameAmount(priced, first.amount)) {
    problems.push(
      `the price route said ${formatAmount(priced)} but create-valid charged ${formatAmount(first.amount)}: the shopper is charged another amount than shown`,
    );
  }
  const expected = { currency: amount.currency, value: amount.value + 1 };
  const mark = await run.sandbox?.mark();
  const answer = await run.create({
    label: `create with expected_amount ${formatAmount(expected)}, not the relay's ${formatAmount(amount)}`,
    body: { ...checkoutIntentFor(first.number, run.purchase), expected_amount: expected },
    idempotencyKey: newAttemptKey(),
  });
  if (isPerClientLimit(answer)) return run.record(perClientSkip(id, answer));
  problems.push(...errorProblems(answer, { status: 409, code: 'amount_changed' }));
  const answered = (answer.json as Json | undefined)?.amount;
  if (answer.status === 409 && !(isAmount(answered) && sameAmount(answered, amount))) {
    problems.push(
      `the 409 does not carry the relay's amount beside the error ("amount": ${JSON.stringify(amount)})`,
    );
  }
  if (mark !== undefined && run.sandbox) {
    const made = ordersCreatedIn(await run.sandbox.since(mark));
    if (made.length > 0)
      problems.push(`the service created ${made.join(', ')} for an amount the shopper did not see`);
  }
  const seen = mark === undefined ? '' : ', and no order reached the service';
  run.record(judged(id, problems, `${answer.label} → 409 amount_changed with the relay's amount${seen}`));
}
