/**
 * `pay-checkout check-relay` and `pay-checkout sandbox`, run
 * as a merchant runs them: child processes over real HTTP on 127.0.0.1.
 * Our own relay must conform in full; our relay with one deliberate fault
 * must be failed on exactly the checks that fault breaks, with exit 1.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
  NO_CLIENT_LIMIT,
  type RelayDefect,
  type RelayUnderCheck,
  serveRelayUnderCheck,
} from '../../fixtures/relay-under-check.js';

/** Every check a full run reports, advice aside. */
const ALL_CHECKS = [
  'create-invalid-input',
  'create-key-reused',
  'create-malformed-key',
  'create-not-json',
  'create-replay',
  'create-too-large',
  'create-valid',
  'create-without-key',
  'error-shape',
  'lookup-forged-token',
  'lookup-missing-token',
  'lookup-other-order-token',
  'lookup-valid',
  'no-personal-data',
  'prompt-limit',
  'security-headers',
];

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

/** A report with what differs from run to run (ports, order ids, seconds) made alike. */
function comparable(report: string): string {
  return report
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
    .replace(/or_[A-Za-z0-9_-]+/g, 'or_ID')
    .replace(/\b\d+ s\b/g, 'N s')
    .trim();
}

async function checkRelayAt(relay: RelayUnderCheck) {
  return runCli(['check-relay', relay.url, '--cart', CHECK_CART]);
}

describe('pay-checkout check-relay', { timeout: 120_000 }, () => {
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
      // Our relay stands in for the merchant's, with the page's key and the sandbox's URL, and a
      // priceCart that takes the page's cart (the example shop's shape) as the merchant's would.
      const relay = await serveRelayUnderCheck({
        baseUrl: sandbox.url,
        secretKey: 'sk_test_sandbox',
        priceCart: priceAnyCart,
      });
      try {
        const checkArgs = commandArgs(checkLine as string);
        assert.equal(checkArgs[1], 'http://127.0.0.1:8000/api/checkout');
        const result = await runCli(['check-relay', relay.url, ...checkArgs.slice(2)]);
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
    ['no-idempotency', 'a new order for every replay', ['create-key-reused', 'create-replay']],
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

  it('passes a relay from before answers carried order.amount and reference, exit 0', async () => {
    const relay = await serveRelayUnderCheck({ rateLimit: NO_CLIENT_LIMIT }, 'before-amounts');
    try {
      const result = await checkRelayAt(relay);
      assert.equal(result.code, 0, result.transcript);
      assert.deepEqual(idsMarked(result.stdout, 'pass'), ALL_CHECKS, result.transcript);
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
      assert.ok(sent <= 12, `${sent} creates sent: the checker kept creating\n${result.transcript}`);
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
