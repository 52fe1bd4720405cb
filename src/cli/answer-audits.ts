/**
 * Checks that read every answer of a run at once: the error shape of every
 * error, no personal data in any body, and the headers every answer must
 * carry (every answer, errors included, carries the security
 * headers). The headers are the ones the package's relay sets on all its
 * JSON (src/http/json-response.ts): money answers are never cached and never
 * sniffed into anything but JSON.
 */
import { advised, type CheckResult, judged } from './check-result.js';
import { personalDataForms } from './checker-shopper.js';
import type { RelayAnswer } from './relay-probe.js';
import { errorShapeProblem } from './wire-expectations.js';

/** A header rule every answer must meet. */
interface HeaderRule {
  /** How the report names it. */
  name: string;
  holds(headers: Headers): boolean;
}

/** The headers a relay in any language must send on every answer. */
const REQUIRED_HEADERS: readonly HeaderRule[] = [
  {
    name: 'Content-Type: application/json',
    holds: (headers) => /^application\/json\s*(;|$)/i.test(headers.get('content-type') ?? ''),
  },
  {
    name: 'Cache-Control: no-store',
    holds: (headers) => /\bno-store\b/i.test(headers.get('cache-control') ?? ''),
  },
  {
    name: 'X-Content-Type-Options: nosniff',
    holds: (headers) => (headers.get('x-content-type-options') ?? '').trim().toLowerCase() === 'nosniff',
  },
];

/** `label, label and 3 more`: which answers, briefly. */
function some(answers: readonly RelayAnswer[]): string {
  const labels = answers.slice(0, 3).map((answer) => answer.label);
  return answers.length > 3 ? `${labels.join(', ')} and ${answers.length - 3} more` : labels.join(', ');
}

/** Every error answer (4xx, 5xx) has `{ error: { code, message, type, param? } }`. */
function auditErrorShapes(answers: readonly RelayAnswer[]): CheckResult {
  const errors = answers.filter((answer) => answer.status >= 400);
  const wrong = errors.filter((answer) => errorShapeProblem(answer.json) !== undefined);
  const problems = wrong.map(
    (answer) => `${answer.label} (${answer.status}): ${errorShapeProblem(answer.json) as string}`,
  );
  return judged(
    'error-shape',
    problems.length === 0
      ? []
      : [`${wrong.length} of ${errors.length} errors lack the shape: ${problems.join('; ')}`],
    `all ${errors.length} errors are { error: { code, message, type, param? } }`,
  );
}

/** No answer body shows the checker's name or number, in any spelling. */
function auditPersonalData(answers: readonly RelayAnswer[], forms: readonly string[]): CheckResult {
  const leaks: string[] = [];
  for (const answer of answers) {
    const text = answer.text.toLowerCase();
    const found = forms.filter((form) => text.includes(form));
    if (found.length > 0) leaks.push(`${answer.label} shows ${found.map((form) => `"${form}"`).join(', ')}`);
  }
  return judged(
    'no-personal-data',
    leaks.length === 0 ? [] : [`customer data in answers: ${leaks.join('; ')}`],
    `none of ${answers.length} answers shows the name or the number, in any spelling`,
  );
}

/** Every answer carries {@link REQUIRED_HEADERS}. */
function auditSecurityHeaders(answers: readonly RelayAnswer[]): CheckResult {
  const problems: string[] = [];
  for (const rule of REQUIRED_HEADERS) {
    const without = answers.filter((answer) => !rule.holds(answer.headers));
    if (without.length > 0) {
      problems.push(
        `${rule.name} missing on ${without.length} of ${answers.length} answers (${some(without)})`,
      );
    }
  }
  const names = REQUIRED_HEADERS.map((rule) => rule.name).join(', ');
  return judged('security-headers', problems, `every answer has ${names}`);
}

/**
 * Advice about the transport, which never fails a run: a relay off this
 * machine must be served over HTTPS (the lookup token, the name and the
 * number travel in its bodies), and HTTPS wants HSTS on the merchant's domain.
 */
function adviseTransport(baseUrl: string, answers: readonly RelayAnswer[]): CheckResult | undefined {
  const url = new URL(baseUrl);
  const loopback =
    ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.hostname.endsWith('.localhost');
  if (url.protocol === 'http:') {
    return loopback
      ? undefined
      : advised('https', 'the relay is served over plain HTTP: in production serve it over HTTPS only');
  }
  const withHsts = answers.some((answer) => answer.headers.has('strict-transport-security'));
  return withHsts
    ? advised('https', 'served over HTTPS with Strict-Transport-Security')
    : advised('https', 'no Strict-Transport-Security header: set HSTS on your domain (advisory)');
}

/** The checks over every answer of a run, then the transport advice. */
export function auditRun(
  baseUrl: string,
  answers: readonly RelayAnswer[],
  numbers: readonly string[],
): CheckResult[] {
  const results = [
    auditErrorShapes(answers),
    auditPersonalData(answers, personalDataForms(numbers)),
    auditSecurityHeaders(answers),
  ];
  const transport = adviseTransport(baseUrl, answers);
  return transport === undefined ? results : [...results, transport];
}
