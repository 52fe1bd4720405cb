/**
 * The network table (`src/shared/networks.ts`) is the one list of
 * mobile-money networks. What it cannot hold is held to it here: the demo's
 * colour of each network's prompt, and every page that lists the networks
 * (the README, the docs, the demo page, the element's summary). A network
 * added to the table fails these tests, each naming the file to follow it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { detectIssuer, parseGhanaMobileNumber } from '../../../src/shared/ghana-mobile-money.js';
import { ISSUERS, isIssuer, listNetworks, NETWORKS } from '../../../src/shared/networks.js';
import { checkoutIntentSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { repositoryRoot } from '../../fixtures/doc-blocks.js';

/** A file of the repository, its runs of white space read as one space (prose wraps anywhere). */
function readFlat(path: string): string {
  return readFileSync(join(repositoryRoot, path), 'utf8').replace(/\s+/g, ' ');
}

/** `a, b and c`: words as a sentence lists them, joined by `and`. */
function sentence(words: readonly string[], and: string): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${and} ${words.at(-1)}`;
}

const names = ISSUERS.map((issuer) => NETWORKS[issuer].name);
const codes = ISSUERS.map((issuer) => `\`${issuer}\``);

/** `MTN \`*170#\`, Telecel and AT \`*110#\``: the networks grouped by the USSD code they share. */
function ussdCodes(): string {
  const byCode = new Map<string, string[]>();
  for (const { name, ussdCode } of Object.values(NETWORKS)) {
    byCode.set(ussdCode, [...(byCode.get(ussdCode) ?? []), name]);
  }
  return [...byCode].map(([code, sharing]) => `${sentence(sharing, 'and')} \`${code}\``).join(', ');
}

/** Where a page lists the networks, and how it lists them, the table's way. */
const LISTED: readonly { path: string; text: string }[] = [
  { path: 'README.md', text: `the network (${names.join(', ')})` },
  { path: 'index.html', text: `for Ghana (${names.join(', ')})` },
  { path: 'index.html', text: `would get from ${listNetworks('or')} appears here` },
  { path: 'src/element/pay-checkout.component.ts', text: `checkout (${names.join(', ')}) for Ghana` },
  { path: 'docs/element.md', text: `the networks offered: \`${ISSUERS.join(',')}\`` },
  {
    path: 'docs/element.md',
    text: `as it is typed (${ISSUERS.map((issuer) => `${NETWORKS[issuer].name} ${NETWORKS[issuer].prefixes.join('/')}`).join(', ')})`,
  },
  { path: 'docs/element.md', text: `the network's USSD fallback (${ussdCodes()})` },
  { path: 'docs/service.md', text: `The networks (\`issuer\`) are ${sentence(codes, 'and')}.` },
  { path: 'docs/sandbox.md', text: `mobile_money { issuer ${ISSUERS.join(' | ')}, number` },
];

describe('the network table', () => {
  it('gives every network a name, a USSD code and prefixes of its own', () => {
    assert.deepEqual(ISSUERS, Object.keys(NETWORKS));
    const prefixes = ISSUERS.flatMap((issuer) => NETWORKS[issuer].prefixes);
    assert.equal(new Set(prefixes).size, prefixes.length, 'a prefix belongs to one network');
    for (const issuer of ISSUERS) {
      const { name, ussdCode, prefixes } = NETWORKS[issuer];
      assert.match(issuer, /^[a-z]+$/);
      assert.ok(isIssuer(issuer));
      assert.ok(name.length > 0, issuer);
      assert.match(ussdCode, /^\*\d+(?:\*\d+)*#$/, issuer);
      for (const prefix of prefixes) {
        assert.match(prefix, /^0\d\d$/, issuer);
        assert.equal(detectIssuer(`${prefix}1234567`), issuer);
        assert.ok(parseGhanaMobileNumber(`${prefix}1234567`), `${prefix}1234567`);
      }
    }
    assert.equal(isIssuer('vodafone'), false);
    assert.equal(isIssuer('toString'), false);
  });

  it('names every network in the wire’s message for an unknown one', () => {
    const intent = customerPayingFrom('0241234567');
    const mobileMoney = { ...intent.payment_method_data.mobile_money, issuer: 'vodafone' };
    const answer = checkoutIntentSchema.safeParse({
      ...intent,
      payment_method_data: { ...intent.payment_method_data, mobile_money: mobileMoney },
    });
    assert.equal(answer.success, false);
    const [issue] = answer.error?.issues ?? [];
    assert.deepEqual(issue?.path, ['payment_method_data', 'mobile_money', 'issuer']);
    assert.equal(issue?.message, `Choose the mobile-money network: ${sentence(ISSUERS, 'or')}.`);
  });

  it('has a colour for every network’s prompt in the demo (demo/styles.css), and none for another', () => {
    const css = readFlat('demo/styles.css');
    const coloured = [
      ...css.matchAll(/\.phone\[data-issuer="([^"]+)"\] \.phone-prompt__bar \{[^}]*\bbackground:/g),
    ];
    assert.deepEqual(
      coloured.map((match) => match[1]),
      [...ISSUERS],
    );
    const named = [...css.matchAll(/data-issuer="([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(new Set(named), new Set(ISSUERS));
  });

  it('is listed whole, in its order, wherever a page lists the networks', () => {
    const stale = LISTED.filter(({ path, text }) => !readFlat(path).includes(text));
    assert.deepEqual(
      stale.map(({ path, text }) => `${path}: ${text}`),
      [],
      'these pages list the networks otherwise than the table',
    );
  });
});
