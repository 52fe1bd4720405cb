/**
 * `pay-checkout check-relay <base-url> [--cart '<json>']`: the
 * conformance check for a relay written in any language. Exit 0 when every
 * check conforms, 1 with each fault named, 2 for bad arguments.
 */
import { parseArgs } from 'node:util';
import { formatResult, formatSummary } from './check-result.js';
import { CHECKER_NUMBER_OUTCOMES, CHECKER_NUMBERS } from './checker-shopper.js';
import { checkRelay, PLANNED_CREATES } from './relay-checks.js';
import { EXIT, integerOption, UsageError } from './usage-error.js';

/** `pay-checkout check-relay --help`. */
export const CHECK_RELAY_HELP = `Usage: pay-checkout check-relay <base-url> [--cart '<json>' | --checkout <client secret>] [--sandbox <url>] [--number <test number>]

Drives your relay, in any language, through the wire <pay-checkout> speaks
and the limits it keeps: creates at <base-url>/orders, lookups at <base-url>/lookup,
prices at <base-url>/price. Prints one line per check; exits 0 when every check
conforms, 1 when one does not or could not run (each fault named by its check),
2 for bad arguments.

It creates real orders. Point your relay at the sandbox (npx pay-checkout
sandbox, key sk_test_sandbox), never at the live service, and give the checker
that sandbox's URL with --sandbox: its control surface shows what reached the
service, and without it the checks that need it are skipped, with the reason.
It pays only from the sandbox's test numbers that move no money:
0244000003 (the payer never answers), or, when an earlier run spent that
number's 3 prompts within 10 minutes, 0244000002 (declines), then 0244000004
(insufficient funds). Nobody's phone is prompted and nothing is paid; with
--sandbox the checker declines the run's open orders as it goes and at its end.

A run sends about ${PLANNED_CREATES} creates, a price request and 6 lookups from this
address. A relay with the default per-client limit (10 creates at once, then
one every 6 s) refuses a few of them: the checker waits out a Retry-After of up
to 65 s, says so, and does not count it as a fault.

Checks: create-without-key (400), create-malformed-key (400), create-not-json
(415), create-too-large (413, over 16 KiB), create-invalid-input (400 with
param), price-route (200 with amount, line_items, reference; never metadata),
create-valid (200 with order.id or_…, statuses, lookup_token),
create-lost-answer (a create whose answer was lost, sent again with the same
key and body: the order it made, and one order at the service; --sandbox),
create-replay (same key and body: the same order), create-key-reused (422),
create-expected-amount (an expected_amount off by one: 409 amount_changed with
the relay's amount, and no order), lookup-valid (200, status fields only),
lookup-forged-token, lookup-missing-token (403), lookup-forged-not-forwarded
(and never passed on to the service; --sandbox), prompt-same-checkout (a second
create for the same reference and number under a new key: the open order, no
second prompt; needs a cart with a reference), prompt-limit (4th create for one
number in 10 minutes: 429 too_many_payment_requests with Retry-After; with a
reference, --sandbox declines each open order first), lookup-other-order-token
(403), error-shape ({ error: { code, message, type, param? } }),
no-personal-data (the name and number, in any spelling, in no answer),
security-headers (Content-Type: application/json, Cache-Control: no-store,
X-Content-Type-Options: nosniff); advice: https.

Options:
  --cart <json>       a cart your pricing accepts, with a reference (default null), e.g. '{"id":"cart-1042","items":[{"sku":"tote","quantity":1}]}'
  --checkout <secret> instead of a cart, a checkout your backend created (serve's POST /v1/checkouts):
                      its client_secret; its reference is what prompt-same-checkout needs
  --sandbox <url>     the sandbox your relay calls (npx pay-checkout sandbox, on this machine), e.g. http://127.0.0.1:4010
  --number <number>   pay only from this test number: ${CHECKER_NUMBERS.join(', ')}
  --timeout <ms>      how long one request may take (default 15000)
  -h, --help          this text
`;

/** The checked arguments of a run. */
interface CheckRelayArguments {
  baseUrl: string;
  sandboxUrl: string | undefined;
  cart: unknown;
  checkout: string | undefined;
  numbers: readonly string[];
  timeoutMs: number;
}

/** Reads `args`; throws {@link UsageError} for anything it cannot run with. Undefined for `--help`. */
function parseCheckRelayArguments(args: readonly string[]): CheckRelayArguments | undefined {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      cart: { type: 'string' },
      checkout: { type: 'string' },
      sandbox: { type: 'string' },
      number: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  if (positionals.length !== 1) {
    throw new UsageError(
      `give one <base-url>, such as http://127.0.0.1:8000/api/checkout; got ${positionals.length}.`,
    );
  }
  return {
    baseUrl: checkedBaseUrl(positionals[0] as string),
    sandboxUrl: values.sandbox === undefined ? undefined : checkedBaseUrl(values.sandbox, '--sandbox'),
    cart: values.cart === undefined ? null : parsedCart(values.cart),
    checkout: checkedCheckout(values.checkout, values.cart),
    numbers: values.number === undefined ? CHECKER_NUMBERS : [checkedNumber(values.number)],
    timeoutMs: integerOption('timeout', values.timeout, 15_000, 100, 600_000),
  };
}

function checkedBaseUrl(value: string, name = '<base-url>'): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search ||
    url.hash ||
    url.username
  ) {
    throw new UsageError(
      `${name} must be an http:// or https:// URL without query or fragment, such as ${name === '<base-url>' ? 'http://127.0.0.1:8000/api/checkout' : 'http://127.0.0.1:4010'}; got ${JSON.stringify(value)}.`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function parsedCart(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new UsageError(
      `--cart is not JSON (${(error as Error).message}); quote it for your shell: --cart '{"items":[]}'.`,
    );
  }
}

/** A server-created checkout's client secret, as serve's merchant API gives it: `cs_…_secret_…`. */
const CLIENT_SECRET_PATTERN = /^cs_[A-Za-z0-9_-]+_secret_[A-Za-z0-9_-]+$/;

function checkedCheckout(value: string | undefined, cart: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (cart !== undefined)
    throw new UsageError('give --cart or --checkout, not both: a create pays for one of them.');
  if (CLIENT_SECRET_PATTERN.test(value)) return value;
  throw new UsageError(
    `--checkout must be a checkout's client secret, cs_…_secret_…, as POST /v1/checkouts answers it; got ${JSON.stringify(value.slice(0, 12))}….`,
  );
}

function checkedNumber(value: string): string {
  if (CHECKER_NUMBERS.includes(value)) return value;
  throw new UsageError(
    `--number must be one of the sandbox's test numbers that move no money: ${CHECKER_NUMBERS.map((number) => `${number} (${CHECKER_NUMBER_OUTCOMES[number]})`).join(', ')}; got ${JSON.stringify(value)}.`,
  );
}

/** Runs the checks and prints the report; resolves to the exit code. */
export async function runCheckRelay(args: readonly string[], print: (line: string) => void): Promise<number> {
  const parsed = parseCheckRelayArguments(args);
  if (parsed === undefined) {
    print(CHECK_RELAY_HELP);
    return EXIT.ok;
  }
  print(`pay-checkout check-relay ${parsed.baseUrl}`);
  print(
    `about ${PLANNED_CREATES} creates and 6 lookups, paying from sandbox test numbers only (${parsed.numbers[0]}: ${CHECKER_NUMBER_OUTCOMES[parsed.numbers[0] as string]})`,
  );
  print(
    parsed.sandboxUrl === undefined
      ? 'no --sandbox: the checks that read what reached the service are not run (notes, not faults)'
      : `reading what reaches the service from the sandbox at ${parsed.sandboxUrl}`,
  );
  print('');
  const report = await checkRelay({
    baseUrl: parsed.baseUrl,
    ...(parsed.sandboxUrl === undefined ? {} : { sandboxUrl: parsed.sandboxUrl }),
    cart: parsed.cart,
    ...(parsed.checkout === undefined ? {} : { checkout: parsed.checkout }),
    numbers: parsed.numbers,
    timeoutMs: parsed.timeoutMs,
    onResult: (result) => print(formatResult(result)),
    onNote: (message) => print(`info  ${message}`),
  });
  print('');
  print(`${formatSummary(report.results)} ${report.createsSent} creates sent.`);
  return report.conforms ? EXIT.ok : EXIT.failed;
}
