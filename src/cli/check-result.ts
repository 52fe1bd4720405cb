/**
 * One line of `pay-checkout check-relay`'s report: a check with a stable id
 * (what tests and merchants grep for), its verdict and what was seen.
 */

/** A check's verdict. `advice` never fails a run; `skip` does (conformance was not shown). */
export const VERDICT = {
  pass: 'pass',
  fail: 'fail',
  advice: 'advice',
  skip: 'skip',
} as const;
/** One of {@link VERDICT}. */
export type Verdict = (typeof VERDICT)[keyof typeof VERDICT];

/** The result of one check. */
export interface CheckResult {
  /** Stable id, e.g. `create-replay`. */
  id: string;
  verdict: Verdict;
  /** What was sent and what came back, or what is wrong. */
  detail: string;
}

/** A passed check. */
export function passed(id: string, detail: string): CheckResult {
  return { id, verdict: VERDICT.pass, detail };
}

/** A failed check: a fault of the relay's wire. */
export function failed(id: string, detail: string): CheckResult {
  return { id, verdict: VERDICT.fail, detail };
}

/** A check that could not run, with the reason (never a wire fault). */
export function skipped(id: string, detail: string): CheckResult {
  return { id, verdict: VERDICT.skip, detail };
}

/** Advice that does not fail the run. */
export function advised(id: string, detail: string): CheckResult {
  return { id, verdict: VERDICT.advice, detail };
}

/** A failed check when `problems` has any, else a passed one. */
export function judged(id: string, problems: readonly string[], passDetail: string): CheckResult {
  return problems.length === 0 ? passed(id, passDetail) : failed(id, problems.join('; '));
}

const MARKS: Readonly<Record<Verdict, string>> = {
  pass: 'pass',
  fail: 'FAIL',
  advice: 'note',
  skip: 'skip',
};

/** The report line of a result: `FAIL  create-replay  …`. */
export function formatResult(result: CheckResult, idWidth = 28): string {
  return `${MARKS[result.verdict].padEnd(5)} ${result.id.padEnd(idWidth)} ${result.detail}`;
}

/** True when every check passed or only advised. */
export function allConform(results: readonly CheckResult[]): boolean {
  return results.every((result) => result.verdict === VERDICT.pass || result.verdict === VERDICT.advice);
}

/** The closing line: how many of each verdict, and the ids of the faults. */
export function formatSummary(results: readonly CheckResult[]): string {
  const count = (verdict: Verdict) => results.filter((result) => result.verdict === verdict).length;
  const faults = results.filter((result) => result.verdict === VERDICT.fail).map((result) => result.id);
  const checks = results.filter((result) => result.verdict !== VERDICT.advice).length;
  const parts = [`${count('pass')} of ${checks} checks conform`];
  if (faults.length > 0)
    parts.push(`${faults.length} fault${faults.length === 1 ? '' : 's'}: ${faults.join(', ')}`);
  if (count('skip') > 0) parts.push(`${count('skip')} not checked`);
  return `${parts.join('; ')}.`;
}
