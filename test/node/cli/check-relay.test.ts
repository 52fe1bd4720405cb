/**
 * `pay-checkout check-relay` and `pay-checkout sandbox`, run
 * as a merchant runs them: child processes over real HTTP on 127.0.0.1.
 * Our own relay must conform in full; our relay with one deliberate fault
 * must be failed on exactly the checks that fault breaks, with exit 1.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PLANNED_CREATES } from '../../../src/cli/relay-checks.js';
import { priceAnyCart } from '../../fixtures/checkout-data.js';
import { blockAfter, readPage } from '../../fixtures/doc-blocks.js';
import { freePort } from '../../fixtures/free-port.js';
import {
  createOrderOn,
  idsMarked,
  runCli,
  startSandboxCommand,
  verdictsOf,
} from '../../fixtures/pay-checkout-cli.js';
import {
  CHECK_CART,
  CHECK_CART_WITH_REFERENCE,
  NO_CLIENT_LIMIT,
  type RelayDefect,
  type RelayUnderCheck,
  serveRelayUnderCheck,
  withJournal,
} from '../../fixtures/relay-under-check.js';

/** Every check a full run reports, advice aside. */
const ALL_CHECKS = [
  'create-expected-amount',
  'create-invalid-input',
  'create-key-reused',
  'create-lost-answer',
  'create-malformed-key',
  'create-not-json',
  'create-replay',
  'create-too-large',
  'create-valid',
  'create-without-key',
  'error-shape',
  'lookup-forged-not-forwarded',
  'lookup-forged-token',
  'lookup-missing-token',
  'lookup-other-order-token',
  'lookup-valid',
  'no-personal-data',
  'price-route',
  'prompt-limit',
  'prompt-same-checkout',
  'security-headers',
];

/** The checks that read what reached the service: skipped, with the reason, without `--sandbox`. */
const SANDBOX_CHECKS = ['create-lost-answer', 'lookup-forged-not-forwarded'];

/** The checks a run with a cart of no reference reports: the one-checkout prompt is then a note. */
const CHECKS_WITHOUT_REFERENCE = ALL_CHECKS.filter((id) => id !== 'prompt-same-checkout');

/** The page that shows the commands and a run's output: "A relay in any language". */
const SANDBOX_PAGE = readPage('docs/sandbox.md');

/** The page's code block after `<!-- pay-checkout-cli: NAME …-->`. */
function pageBlock(name: string): string {
  const block = blockAfter(SANDBOX_PAGE, `pay-checkout-cli: ${name} `);
  assert.ok(block !== undefined, `docs/sandbox.md has no ${name} block`);
  return block;
}

/** `npx pay-checkout …` as a shell reads it: the arguments after the command name, single quotes removed. */
function commandArgs(line: string): string[] {
  const words = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => (match[1] ?? match[2]) as string);
  assert.deepEqual(words.slice(0, 2), ['npx', 'pay-checkout'], line);
  return words.slice(2);
}

/** The URL `pay-checkout sandbox --port N` prints. */
function sandboxUrlOf(sandboxArgs: readonly string[]): string {
  return `http://127.0.0.1:${sandboxArgs[2]}`;
}

/** A report with what differs from run to run (ports, order ids, seconds) made alike. */
function comparable(report: string): string {
  return report
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
    .replace(/or_[A-Za-z0-9_-]+/g, 'or_ID')
    .replace(/\b\d+ s\b/g, 'N s')
    .trim();
}

/** check-relay against `relay`, reading its sandbox, with the cart given (default one without a reference). */
async function checkRelayAt(relay: RelayUnderCheck, cart = CHECK_CART) {
  return runCli(['check-relay', relay.url, '--cart', cart, '--sandbox', relay.sandboxUrl]);
}

/** `args` with the value after `--sandbox` replaced by `url`. */
function withSandbox(args: readonly string[], url: string): string[] {
  const at = args.indexOf('--sandbox');
  assert.ok(at >= 0, `no --sandbox in ${args.join(' ')}`);
  return [...args.slice(0, at + 1), url, ...args.slice(at + 2)];
}

describe('pay-checkout check-relay', { timeout: 480_000 }, () => {
  describe('the commands of docs/sandbox.md, against our own relay with its default limits', () => {
    it('report every check as conforming, exit 0, and print the page’s sample output', async () => {
      const [sandboxLine, checkLine] = pageBlock('commands').trim().split('\n');
      const sandboxArgs = commandArgs(sandboxLine as string);
      assert.deepEqual(sandboxArgs.slice(0, 2), ['sandbox', '--port']);
      // The page's port may be taken on this machine: the same command on a free one.
      const sandbox = await startSandboxCommand([
        '--port',
        String(await freePort()),
        ...sandboxArgs.slice(3),
      ]);
      // Our relay stands in for the merchant's, with the page's key and the sandbox's URL, a journal,
      // and a priceCart that takes the page's cart (the example shop's shape) as the merchant's
      // would, its id the reference.
      const relay = await serveRelayUnderCheck(
        await withJournal({
          baseUrl: sandbox.url,
          secretKey: 'sk_test_sandbox',
          priceCart: (cart) => ({ lineItems: priceAnyCart(), reference: (cart as { id: string }).id }),
        }),
      );
      try {
        const checkArgs = commandArgs(checkLine as string);
        assert.equal(checkArgs[1], 'http://127.0.0.1:8000/api/checkout');
        assert.equal(checkArgs[checkArgs.indexOf('--sandbox') + 1], sandboxUrlOf(sandboxArgs));
        const result = await runCli([
          'check-relay',
          relay.url,
          ...withSandbox(checkArgs.slice(2), sandbox.url),
        ]);
        assert.equal(result.code, 0, result.transcript);
        assert.deepEqual(idsMarked(result.stdout, 'pass'), ALL_CHECKS, result.transcript);
        // 11 creates meet the default bucket of 10: one wait, said as such, and no fault.
        assert.match(
          result.stdout,
          /^info {2}.*429 rate_limited \(the relay's per-client limit\), waiting \d+ s/m,
        );
        assert.equal(result.stderr, '');
        assert.equal(comparable(result.stdout), comparable(pageBlock('sample output')));
      } finally {
        await relay.close();
        assert.equal(await sandbox.stop(), 0, sandbox.output());
      }
    });
  });

  const faults: [RelayDefect, string, string[]][] = [
    [
      'no-idempotency',
      'a new order for every replay and every re-send',
      ['create-key-reused', 'create-lost-answer', 'create-replay'],
    ],
    ['leaks-number', "the customer's number in the lookup answer", ['lookup-valid', 'no-personal-data']],
    [
      'accepts-any-token',
      'lookups answered whatever the token',
      ['lookup-forged-token', 'lookup-missing-token', 'lookup-other-order-token'],
    ],
    [
      'flat-errors',
      'errors without the { error: { … } } shape',
      [
        'create-expected-amount',
        'create-invalid-input',
        'create-key-reused',
        'create-malformed-key',
        'create-not-json',
        'create-too-large',
        'create-without-key',
        'error-shape',
        'lookup-forged-token',
        'lookup-missing-token',
        'lookup-other-order-token',
        'prompt-limit',
      ],
    ],
    ['bare-headers', 'answers that may be cached and sniffed', ['security-headers']],
    ['amount-as-text', 'an amount that is display text', ['lookup-valid']],
  ];
  for (const [defect, what, expected] of faults) {
    it(`names each fault of a relay with ${what}, and exits 1`, async () => {
      const relay = await serveRelayUnderCheck({ rateLimit: NO_CLIENT_LIMIT }, defect);
      try {
        const result = await checkRelayAt(relay);
        assert.equal(result.code, 1, result.transcript);
        assert.deepEqual(idsMarked(result.stdout, 'FAIL'), expected, result.transcript);
        assert.deepEqual(idsMarked(result.stdout, 'skip'), [], result.transcript);
        const summary = /\d+ faults?: ([a-z, -]+)\./.exec(result.stdout)?.[1];
        assert.deepEqual(summary?.split(', ').sort(), expected, result.transcript);
      } finally {
        await relay.close();
      }
    });
  }

  // Our relay with a journal, behind one fault of a hand-written relay, checked with a cart that has a reference.
  const referencedFaults: [RelayDefect, string, string[]][] = [
    [
      'forwards-forged-lookups',
      'lookups passed on to the service before the token is checked',
      ['lookup-forged-not-forwarded'],
    ],
    ['no-price-route', 'no price route', ['price-route']],
    ['ignores-expected-amount', 'expected_amount ignored', ['create-expected-amount']],
    [
      'no-prompt-limit',
      'no prompt limit, per number or per checkout',
      ['prompt-limit', 'prompt-same-checkout'],
    ],
  ];
  for (const [defect, what, expected] of referencedFaults) {
    it(`names the fault of a relay with ${what}, seen through the sandbox, and exits 1`, async () => {
      const relay = await serveRelayUnderCheck(await withJournal({ rateLimit: NO_CLIENT_LIMIT }), defect);
      try {
        const result = await checkRelayAt(relay, CHECK_CART_WITH_REFERENCE);
        assert.equal(result.code, 1, result.transcript);
        assert.deepEqual(idsMarked(result.stdout, 'FAIL'), expected, result.transcript);
        assert.deepEqual(idsMarked(result.stdout, 'skip'), [], result.transcript);
      } finally {
        await relay.close();
      }
    });
  }

  it('tells what the sandbox saw: the second order of a re-send, the lookup passed on, the 409 without an order', async () => {
    const resent = await serveRelayUnderCheck({ rateLimit: NO_CLIENT_LIMIT }, 'no-idempotency');
    const forwarding = await serveRelayUnderCheck(
      await withJournal({ rateLimit: NO_CLIENT_LIMIT }),
      'forwards-forged-lookups',
    );
    try {
      const { stdout: resentReport } = await checkRelayAt(resent);
      assert.match(
        resentReport,
        /^FAIL {2}create-lost-answer +the service made 2 orders \(or_\w+, or_\w+\) for one attempt: a shopper whose answer is lost is charged twice$/m,
      );
      const { stdout } = await checkRelayAt(forwarding, CHECK_CART_WITH_REFERENCE);
      assert.match(
        stdout,
        /^FAIL {2}lookup-forged-not-forwarded +the service was asked for or_\w+ \(\/orders\/lookup → 404\): check the token before calling the service/m,
      );
      assert.match(
        stdout,
        /^pass {2}create-expected-amount +create with expected_amount 12501 ghs, not the relay's 12500 ghs → 409 amount_changed with the relay's amount, and no order reached the service$/m,
      );
      assert.match(
        stdout,
        /^pass {2}prompt-same-checkout +a second create for reference cart-1042 and 0244000003/m,
      );
    } finally {
      await resent.close();
      await forwarding.close();
    }
  });

  it('without --sandbox, notes the checks that read it and why, and exits 0 with no fault', async () => {
    const relay = await serveRelayUnderCheck(await withJournal({ rateLimit: NO_CLIENT_LIMIT }));
    try {
      const result = await runCli(['check-relay', relay.url, '--cart', CHECK_CART_WITH_REFERENCE]);
      assert.equal(result.code, 0, result.transcript);
      assert.deepEqual(idsMarked(result.stdout, 'FAIL'), [], result.transcript);
      assert.deepEqual(idsMarked(result.stdout, 'skip'), [], result.transcript);
      for (const id of SANDBOX_CHECKS) {
        assert.match(
          result.stdout,
          new RegExp(`^note {2}${id} +not checked: needs --sandbox <url>, the sandbox your relay calls`, 'm'),
        );
      }
      assert.match(
        result.stdout,
        /^note {2}prompt-limit +not checked: with the cart's reference \(cart-1042\) each create for 0244000003 answers its open order/m,
      );
      assert.match(
        result.stdout,
        /^no --sandbox: the checks that read what reached the service are not run \(notes, not faults\)$/m,
      );
    } finally {
      await relay.close();
    }
  });

  it('skips the sandbox checks, saying so, when --sandbox names a sandbox the relay does not call', async () => {
    const relay = await serveRelayUnderCheck(await withJournal({ rateLimit: NO_CLIENT_LIMIT }));
    const other = await serveRelayUnderCheck();
    try {
      const result = await runCli([
        'check-relay',
        relay.url,
        '--cart',
        CHECK_CART_WITH_REFERENCE,
        '--sandbox',
        other.sandboxUrl,
      ]);
      assert.equal(result.code, 1, result.transcript);
      assert.deepEqual(idsMarked(result.stdout, 'FAIL'), [], result.transcript);
      assert.match(
        result.stdout,
        /^info {2}the relay does not call the sandbox at http:\/\/127\.0\.0\.1:\d+: create-valid's order or_\w+ is not in its log/m,
      );
      for (const id of SANDBOX_CHECKS)
        assert.equal(verdictsOf(result.stdout).get(id), 'skip', result.transcript);
    } finally {
      await relay.close();
      await other.close();
    }
  });

  it('skips the sandbox checks, saying why, when nothing answers at --sandbox', async () => {
    const relay = await serveRelayUnderCheck({ rateLimit: NO_CLIENT_LIMIT });
    try {
      const nowhere = `http://127.0.0.1:${await freePort()}`;
      const result = await runCli(['check-relay', relay.url, '--cart', CHECK_CART, '--sandbox', nowhere]);
      assert.equal(result.code, 1, result.transcript);
      assert.deepEqual(idsMarked(result.stdout, 'FAIL'), [], result.transcript);
      assert.match(
        result.stdout,
        /^info {2}the sandbox at http:\/\/127\.0\.0\.1:\d+ did not answer GET \/_sandbox\/requests \(no answer: .*ECONNREFUSED.*\): the checks that read it are skipped$/m,
      );
      for (const id of SANDBOX_CHECKS) {
        assert.match(
          result.stdout,
          new RegExp(`^skip {2}${id} +the sandbox at http://127\\.0\\.0\\.1:\\d+ did not answer`, 'm'),
        );
      }
    } finally {
      await relay.close();
    }
  });

  it('passes a relay from before answers carried order.amount and reference, exit 0', async () => {
    const relay = await serveRelayUnderCheck({ rateLimit: NO_CLIENT_LIMIT }, 'before-amounts');
    try {
      const result = await checkRelayAt(relay);
      assert.equal(result.code, 0, result.transcript);
      assert.deepEqual(idsMarked(result.stdout, 'pass'), CHECKS_WITHOUT_REFERENCE, result.transcript);
      assert.equal(verdictsOf(result.stdout).get('prompt-same-checkout'), 'note', result.transcript);
    } finally {
      await relay.close();
    }
  });

  it('stops asking for prompts, and fails prompt-limit, when every create for a number answers its first order', {
    timeout: 30_000,
  }, async () => {
    const relay = await serveRelayUnderCheck({ rateLimit: NO_CLIENT_LIMIT }, 'one-order-per-number');
    try {
      const result = await checkRelayAt(relay);
      assert.equal(result.code, 1, result.transcript);
      assert.equal(verdictsOf(result.stdout).get('prompt-limit'), 'FAIL', result.transcript);
      assert.match(result.stdout, /^FAIL {2}prompt-limit +.*4 creates .* all accepted/m);
      const sent = Number(/(\d+) creates sent\./.exec(result.stdout)?.[1]);
      assert.ok(
        sent <= PLANNED_CREATES + 1,
        `${sent} creates sent: the checker kept creating\n${result.transcript}`,
      );
    } finally {
      await relay.close();
    }
  });

  it('tells the faults apart in words a merchant can act on', async () => {
    const relay = await serveRelayUnderCheck({ rateLimit: NO_CLIENT_LIMIT }, 'leaks-number');
    try {
      const { stdout } = await checkRelayAt(relay);
      assert.match(stdout, /^FAIL {2}lookup-valid .*order\.customer/m);
      assert.match(stdout, /^FAIL {2}no-personal-data .*lookup with the order’s token shows "244000003"/m);
    } finally {
      await relay.close();
    }
  });

  it('reports a per-client 429 it cannot wait out as that limit, not as a fault', async () => {
    // Three creates, then one an hour: far beyond the 65 s the checker waits.
    const relay = await serveRelayUnderCheck({
      rateLimit: { create: { capacity: 3, refillPerMinute: 1 / 60 } },
    });
    try {
      const result = await checkRelayAt(relay);
      assert.equal(result.code, 1, result.transcript);
      assert.deepEqual(idsMarked(result.stdout, 'FAIL'), [], result.transcript);
      assert.equal(verdictsOf(result.stdout).get('create-too-large'), 'skip');
      assert.match(
        result.stdout,
        /^skip {2}create-too-large +create of 16385 bytes: refused by the relay's per-client limit \(429 rate_limited, Retry-After \d+ s\), not a wire fault/m,
      );
    } finally {
      await relay.close();
    }
  });

  it('fails with the reason when nothing answers at the URL', async () => {
    const port = await freePort();
    const result = await runCli(['check-relay', `http://127.0.0.1:${port}/api/checkout`]);
    assert.equal(result.code, 1, result.transcript);
    assert.match(
      result.stdout,
      /^FAIL {2}reachable +create without Idempotency-Key: no answer \(.*ECONNREFUSED/m,
    );
  });

  it('refuses bad arguments with exit 2 and says what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['check-relay', 'not a url'], /<base-url> must be an http:\/\/ or https:\/\/ URL/],
      [['check-relay', 'http://127.0.0.1:1/api', '--cart', '{items'], /--cart is not JSON/],
      [['check-relay', 'http://127.0.0.1:1/api', '--number', '0241234567'], /--number must be one of/],
      [
        ['check-relay', 'http://127.0.0.1:1/api', '--sandbox', 'localhost:4010'],
        /--sandbox must be an http:\/\/ or https:\/\/ URL/,
      ],
      [['check-relay', 'http://127.0.0.1:1/api', '--cart', '{}', '--checkout', 'cs_a_secret_b'], /not both/],
      [
        ['check-relay', 'http://127.0.0.1:1/api', '--checkout', 'order-1042'],
        /--checkout must be a checkout's client secret/,
      ],
      [['check-relay'], /give one <base-url>/],
      [['sandbox', '--port', '70000'], /--port must be a whole number from 0 to 65535/],
      [['sandbox', '--verbose'], /Unknown option '--verbose'/],
      [['refund'], /no command "refund"/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args);
      assert.equal(result.code, 2, result.transcript);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '', result.transcript);
    }
  });

  it('prints its help with exit 0, naming the test number it pays from', async () => {
    const result = await runCli(['check-relay', '--help']);
    assert.equal(result.code, 0, result.transcript);
    assert.match(result.stdout, /^Usage: pay-checkout check-relay <base-url>/);
    assert.match(result.stdout, /0244000003 \(the payer never answers\)/);
    assert.match(result.stdout, /^ {2}--sandbox <url> +the sandbox your relay calls/m);
    const sandboxHelp = await runCli(['sandbox', '--help']);
    assert.equal(sandboxHelp.code, 0, sandboxHelp.transcript);
    assert.match(sandboxHelp.stdout, /^Usage: pay-checkout sandbox \[--port 4010\]/);
  });
});

describe('pay-checkout sandbox', { timeout: 60_000 }, () => {
  it('serves the service in test mode on the port given, answers a create with sk_test_sandbox, and stops on SIGTERM', async () => {
    const port = await freePort();
    const sandbox = await startSandboxCommand(['--port', String(port)]);
    try {
      assert.equal(sandbox.url, `http://127.0.0.1:${port}`);
      assert.match(sandbox.output(), /secret key +sk_test_sandbox/);
      assert.match(sandbox.output(), /0244000003 never answers/);
      const { status, order } = await createOrderOn(sandbox.url);
      assert.equal(status, 200);
      assert.match(order?.id ?? '', /^or_/);
      assert.equal(order?.payment.status, 'requires_action');
    } finally {
      assert.equal(await sandbox.stop('SIGTERM'), 0, sandbox.output());
    }
    assert.match(sandbox.output(), /stopped\.\n$/);
  });

  it('stops on Ctrl-C (SIGINT) too', async () => {
    const sandbox = await startSandboxCommand(['--port', '0', '--approve-ms', '1000']);
    try {
      assert.match(sandbox.output(), /approves after 1000 ms/);
    } finally {
      assert.equal(await sandbox.stop('SIGINT'), 0, sandbox.output());
    }
  });
});
