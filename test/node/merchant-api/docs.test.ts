/**
 * docs/merchant-api.md, run: each `curl` example is read from the page
 * (method, path, headers, body), sent to the real handler over HTTP with
 * `$PAY_CHECKOUT_URL`, `$PAY_CHECKOUT_API_KEY`, `$CHECKOUT_ID` and
 * `$ORDER_ID` filled in, and its answer held to the page's: the same status,
 * the same fields in the same order, the same values but for ids, secrets
 * and times, which must only have the right form. Between the examples the
 * shopper pays the checkout through the relay with its client secret, as the
 * element does, and the payer approves on the sandbox's control surface.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockAfter, readPage } from '../../fixtures/doc-blocks.js';
import {
  API_KEY,
  type ApiAnswer,
  type MerchantApiStack,
  merchantApiStack,
  SHOP_ORIGIN,
} from '../../fixtures/merchant-api.js';

const PAGE = readPage('docs/merchant-api.md');

/** Fields whose values differ from run to run, and the form each must have. */
const VARYING: Record<string, RegExp> = {
  id: /^(?:cs_[A-Za-z0-9_-]{24}|or_[A-Za-z0-9_-]{1,64})$/,
  client_secret: /^cs_[A-Za-z0-9_-]{24}_secret_[A-Za-z0-9_-]{43}$/,
  paid_order_id: /^or_[A-Za-z0-9_-]{1,64}$/,
  order_ids: /^or_[A-Za-z0-9_-]{1,64}$/,
  created_at: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
  expires_at: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
  settled_at: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
  delivered_at: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
};

/** The request a `curl` example of the page sends. */
interface CurlRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** The code block after `<!-- merchant-api: name -->` (or `name answer STATUS`). */
function block(marker: string): string {
  const code = blockAfter(PAGE, `merchant-api: ${marker} -->`);
  assert.ok(code, `docs/merchant-api.md has a block marked merchant-api: ${marker}`);
  return code;
}

/** What the `curl` of example `name` sends, with the shell's variables as `variables` give them. */
function curlOf(name: string, variables: Record<string, string>): CurlRequest {
  const command = block(name).replace(
    /\$([A-Z_]+)/g,
    (whole, variable: string) => variables[variable] ?? whole,
  );
  assert.ok(command.startsWith('curl -s '), name);
  const url = /curl -s (?:-X \w+ )?"([^"]+)"/.exec(command)?.[1];
  if (!url?.startsWith('http')) throw new Error(`${name}: no URL in the example`);
  const headers: Record<string, string> = {};
  for (const [, header = ''] of command.matchAll(/-H "([^"]+)"/g)) {
    const colon = header.indexOf(':');
    headers[header.slice(0, colon).toLowerCase()] = header.slice(colon + 1).trim();
  }
  const body = /-d '([^']*)'/.exec(command)?.[1];
  const method = /-X (\w+)/.exec(command)?.[1] ?? (body === undefined ? 'GET' : 'POST');
  return { method, path: url.slice(variables.PAY_CHECKOUT_URL?.length), headers, body };
}

/** The documented answer of example `name`: its status and JSON body. */
function documentedAnswer(name: string): { status: number; body: unknown } {
  const start = PAGE.indexOf(`<!-- merchant-api: ${name} answer `);
  assert.notEqual(start, -1, `docs/merchant-api.md shows the answer of ${name}`);
  const status = Number(/answer (\d{3}) -->/.exec(PAGE.slice(start))?.[1]);
  const code = blockAfter(PAGE.slice(start), `merchant-api: ${name} answer ${status} -->`);
  assert.ok(code, `${name}: the answer's block`);
  return { status, body: JSON.parse(code) };
}

/** Fails unless `actual` is `documented` but for the values of {@link VARYING} fields, which have their form in both. */
function assertLike(actual: unknown, documented: unknown, where: string, field = ''): void {
  const form = VARYING[field];
  if (form && (typeof documented === 'string' || Array.isArray(documented))) {
    for (const [value, whose] of [
      [actual, 'the answer'],
      [documented, 'the page'],
    ] as const) {
      for (const each of Array.isArray(value) ? value : [value])
        assert.match(String(each), form, `${where} in ${whose}`);
    }
    if (Array.isArray(documented)) assert.equal((actual as unknown[]).length, documented.length, where);
    return;
  }
  if (typeof documented !== 'object' || documented === null) {
    assert.deepEqual(actual, documented, where);
    return;
  }
  assert.equal(Array.isArray(actual), Array.isArray(documented), where);
  assert.deepEqual(Object.keys(actual as object), Object.keys(documented), `${where}: the fields`);
  for (const [key, value] of Object.entries(documented)) {
    const inArray = Array.isArray(documented);
    assertLike((actual as Record<string, unknown>)[key], value, `${where}.${key}`, inArray ? field : key);
  }
}

/** Sends example `name` to the stack and holds its answer to the page's. */
async function runExample(
  stack: MerchantApiStack,
  name: string,
  variables: Record<string, string> = {},
): Promise<ApiAnswer> {
  const curl = curlOf(name, { PAY_CHECKOUT_URL: stack.url, PAY_CHECKOUT_API_KEY: API_KEY, ...variables });
  const answer = await stack.v1(curl.path, {
    key: null,
    method: curl.method,
    headers: curl.headers,
    rawBody: curl.body,
  });
  const documented = documentedAnswer(name);
  assert.equal(answer.status, documented.status, `${name}: ${JSON.stringify(answer.body)}`);
  assertLike(answer.body, documented.body, name);
  return answer;
}

describe('docs/merchant-api.md', () => {
  it('answers every example as the page shows, from a new checkout to its paid order', async () => {
    const stack = await merchantApiStack();
    await runExample(stack, 'wrong-key');
    await runExample(stack, 'bad-price');
    const created = await runExample(stack, 'create-checkout');
    const paid = await stack.shopperPaysCheckout(created.body.client_secret, SHOP_ORIGIN);
    await stack.payerAnswers(paid.order.id, 'approve');
    await stack.watcherPass();
    const variables = { CHECKOUT_ID: created.body.id, ORDER_ID: paid.order.id };
    const checkout = await runExample(stack, 'read-checkout', variables);
    assert.equal(checkout.body.paid_order_id, paid.order.id);
    const orders = await runExample(stack, 'orders-by-reference', variables);
    assert.equal(orders.body.data[0].id, paid.order.id);
    const curl = curlOf('read-order', {
      PAY_CHECKOUT_URL: stack.url,
      PAY_CHECKOUT_API_KEY: API_KEY,
      ...variables,
    });
    const order = await stack.v1(curl.path, { key: null, headers: curl.headers });
    assert.equal(order.status, 200);
    assert.deepEqual(order.body, orders.body.data[0], 'one order reads as it does in data');
  });
});
