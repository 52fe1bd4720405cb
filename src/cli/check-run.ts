/**
 * The state one `check-relay` run shares between its checks: the probe, the
 * cart, where results go, and which orders the relay accepted for which
 * number (the prompt-limit check counts them).
 */
import { advised, type CheckResult, judged, skipped } from './check-result.js';
import type { Purchase } from './checker-shopper.js';
import { isPerClientLimit, type RelayAnswer, type RelayProbe } from './relay-probe.js';
import type { SandboxView } from './sandbox-view.js';
import {
  describeAnswer,
  type ExpectedError,
  errorProblems,
  lookupTokenOf,
  orderIdOf,
} from './wire-expectations.js';

/** An order the run created, with what made it. */
export interface CreatedOrder {
  orderId: string;
  lookupToken: string;
  idempotencyKey: string;
  number: string;
  body: unknown;
  /** The merchant's reference the relay answered for the cart; null when none. */
  reference: string | null;
  /** The amount the relay answered it charges, when it answered one. */
  amount: OrderAmountJson | undefined;
}

/** `{ currency, value }` as the wire carries it. */
export interface OrderAmountJson {
  currency: string;
  value: number;
}

/** The state of one run, shared by the checks. */
export interface CheckRun {
  probe: RelayProbe;
  /** What every create of the run pays for. */
  purchase: Purchase;
  record(result: CheckResult): void;
  note(message: string): void;
  /** Creates with the given key and body, counting each accepted order against its number. */
  create(request: CreateProbe): Promise<RelayAnswer>;
  /** Order ids the relay accepted per number in this run. */
  ordersOf(number: string): ReadonlySet<string>;
  /** The lookup token the relay gave with each order it accepted in this run. */
  readonly lookupTokens: ReadonlyMap<string, string>;
  /** The sandbox the relay calls, when `--sandbox` named it and it answers. */
  sandbox: SandboxView | undefined;
  /** Why the checks that read the sandbox are not run when {@link sandbox} is undefined. */
  sandboxMissing: string;
  /**
   * A check that needs the sandbox, not run: a note when no `--sandbox` was
   * given (the wire was shown as far as it can be without one, so a conforming
   * relay still exits 0), a skip when the sandbox named could not be used.
   */
  withoutSandbox(id: string, detail?: string): CheckResult;
  /**
   * Declines, through the sandbox, every order of the run for `number` still
   * waiting for the payer: a relay that answers a number's open prompt with
   * its order then sends the next create a prompt of its own.
   */
  freeNumber(number: string): Promise<void>;
}

/** Why the sandbox's checks are not run when no `--sandbox` was given. */
const NO_SANDBOX_GIVEN =
  'needs --sandbox <url>, the sandbox your relay calls, to see what reaches the service';

/** One create of a run. */
export interface CreateProbe {
  label: string;
  body: unknown;
  idempotencyKey?: string;
  contentType?: string;
}

/** A run over `probe` paying for `purchase`: results go to `record`, remarks to `note`. */
export function startRun(
  probe: RelayProbe,
  purchase: Purchase,
  note: (message: string) => void,
  record: (result: CheckResult) => void,
): CheckRun {
  const orders = new Map<string, Set<string>>();
  const lookupTokens = new Map<string, string>();
  const declined = new Set<string>();
  const run: CheckRun = {
    lookupTokens,
    probe,
    purchase,
    record,
    note,
    sandbox: undefined,
    sandboxMissing: NO_SANDBOX_GIVEN,
    withoutSandbox(id, detail = run.sandboxMissing) {
      return run.sandboxMissing === NO_SANDBOX_GIVEN
        ? advised(id, `not checked: ${detail}`)
        : skipped(id, detail);
    },
    async freeNumber(number) {
      for (const orderId of run.ordersOf(number)) {
        if (declined.has(orderId) || run.sandbox === undefined) continue;
        declined.add(orderId);
        await run.sandbox.decline(orderId);
      }
    },
    async create(request) {
      const answer = await probe.send({ ...request, route: 'create' });
      const orderId = answer.status === 200 ? orderIdOf(answer) : undefined;
      const number = numberOf(request.body);
      const token = lookupTokenOf(answer);
      if (orderId !== undefined && token !== undefined) lookupTokens.set(orderId, token);
      if (orderId !== undefined && number !== undefined) {
        const accepted = orders.get(number) ?? new Set<string>();
        accepted.add(orderId);
        orders.set(number, accepted);
      }
      return answer;
    },
    ordersOf: (number) => orders.get(number) ?? new Set(),
  };
  return run;
}

function numberOf(body: unknown): string | undefined {
  const number = (body as { payment_method_data?: { mobile_money?: { number?: unknown } } } | null)
    ?.payment_method_data?.mobile_money?.number;
  return typeof number === 'string' ? number : undefined;
}

/** A fresh key of the element's form: one per checkout attempt. */
export function newAttemptKey(): string {
  return crypto.randomUUID();
}

/** The skip of a check whose request the relay's per-client limit refused even after a wait. */
export function perClientSkip(id: string, answer: RelayAnswer): CheckResult {
  const wait = answer.headers.get('retry-after') ?? '?';
  return skipped(
    id,
    `${answer.label}: refused by the relay's per-client limit (429 rate_limited, Retry-After ${wait} s), not a wire fault; run again once it has passed`,
  );
}

/** Judges `answer` as the error `expected`, or skips the check when the per-client limit refused it. */
export function judgeRefusal(id: string, answer: RelayAnswer, expected: ExpectedError): CheckResult {
  if (isPerClientLimit(answer) && expected.status !== 429) return perClientSkip(id, answer);
  return judged(id, errorProblems(answer, expected), `${answer.label} → ${describeAnswer(answer)}`);
}
