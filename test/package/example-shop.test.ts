/**
 * The example shop of the README's quick start (examples/shop/), as a
 * merchant runs it: installed with the packed tarball, Express 5 and libsql
 * into a project under the system's temp directory, started with
 * `node server.js`, then driven over real HTTP as its page and the payer
 * would. The page and the element load; a cart is priced by the shop's
 * catalogue, not the page; the payer approves through the sandbox's control
 * surface; the page's lookup sees the order paid, and `onPaid` writes one
 * shipment to the shop's own table, however often it is called. SIGTERM then
 * stops the shop cleanly. (test/node/docs.test.ts holds the README to the
 * shop's files, word for word.)
 *
 * Needs `npm run build` first (the `test` script runs it).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'libsql';
import { customerPayingFrom } from '../fixtures/checkout-data.js';
import { freePort } from '../fixtures/free-port.js';
import { installWithPackage, packRepository } from './packed-package.js';
import { runCommand } from './run-command.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const example = join(repositoryRoot, 'examples', 'shop');
const LOOKUP_SECRET = 'example-shop-lookup-secret';
/** The sandbox's payer who never answers by itself: the test approves for them. */
const NEVER_ANSWERS = '0244000003';
/** Two kente totes at the catalogue's GH₵ 125.00, whatever the page says. */
const TWO_TOTES = { items: [{ product_id: 'kente-tote', quantity: 2, price: 1 }] };

/** The shop's server, running as its own process. */
interface RunningShop {
  url: string;
  child: ChildProcess;
  /** What it printed on stdout, line by line. */
  lines: string[];
  /** What it printed on stderr: warnings a merchant would see. */
  errors: string[];
  /** Resolves with the first line (printed or to come) that `matches`; rejects if the shop exits first. */
  line(matches: (line: string) => boolean): Promise<string>;
}

const children = new Set<ChildProcess>();

/** Starts `node server.js` in `shop` and resolves once it says where it listens. */
async function startShop(shop: string): Promise<RunningShop> {
  const port = await freePort();
  const child = spawn(process.execPath, ['server.js'], {
    cwd: shop,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Only what the shop reads: no PAY_API_BASE_URL, so the sandbox stands in for the service.
    env: { PATH: process.env.PATH, PORT: String(port), PAY_LOOKUP_SECRET: LOOKUP_SECRET },
  });
  children.add(child);
  const lines: string[] = [];
  const errors: string[] = [];
  const waiting = new Set<{ matches: (line: string) => boolean; resolve: (line: string) => void }>();
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => errors.push(chunk));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiting) {
      if (!waiter.matches(line)) continue;
      waiting.delete(waiter);
      waiter.resolve(line);
    }
  });
  const exited = once(child, 'exit');
  const line = (matches: (line: string) => boolean) => {
    const seen = lines.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return Promise.race([
      new Promise<string>((resolve) => waiting.add({ matches, resolve })),
      exited.then(([code, signal]) => {
        throw new Error(`the shop exited (${code ?? signal}):\n${[...lines, ...errors].join('\n')}`);
      }),
    ]);
  };
  const url = `http://127.0.0.1:${port}`;
  await line((printed) => printed === `Shop on ${url}`);
  return { url, child, lines, errors, line };
}

/** What the relay and the sandbox answer, as far as the test reads it. */
interface Answer {
  error?: { code: string; param?: string };
  order?: {
    id: string;
    payment: { status: string };
    line_item_group?: { total: { currency: string; value: number } };
  };
  lookup_token?: string;
}

/** POSTs JSON as the page (or the payer's control surface) does; answers the status and the body. */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Answer }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

/** The rows of the shop's own shipments table. */
function shipmentsIn(shop: string): { order_id: string }[] {
  const database = new Database(join(shop, '.data', 'shop.db'), { readonly: true });
  try {
    return database.prepare('SELECT order_id FROM shipments ORDER BY order_id').all() as {
      order_id: string;
    }[];
  } finally {
    database.close();
  }
}

describe('the example shop, installed from the packed tarball', { timeout: 300_000 }, () => {
  let workDirectory: string;
  let shop: string;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-shop-'));
    shop = join(workDirectory, 'shop');
    const { tarball } = await packRepository(workDirectory);
    await cp(example, shop, {
      recursive: true,
      filter: (path) => !/(?:^|\/)(?:node_modules|\.data)(?:\/|$)/.test(path.slice(example.length)),
    });
    await installWithPackage(shop, tarball);
  });

  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('serves its page with the element, prices the cart itself, ships a paid order once, and stops on SIGTERM', {
    timeout: 120_000,
  }, async (t) => {
    const running = await startShop(shop);
    try {
      const page = await fetch(`${running.url}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<pay-checkout create-url="\/api\/checkout\/orders"/);
      const embed = await fetch(`${running.url}/pay-checkout.embed.js`);
      assert.equal(embed.status, 200);
      const installedEmbed = join(shop, 'node_modules', 'pay-checkout', 'dist', 'pay-checkout.embed.js');
      assert.equal(await embed.text(), await readFile(installedEmbed, 'utf8'), 'the package’s own embed');
      assert.equal((await fetch(`${running.url}/checkout.js`)).status, 200);

      const create = (cart: unknown) =>
        post(
          `${running.url}/api/checkout/orders`,
          { ...customerPayingFrom(NEVER_ANSWERS), cart },
          { 'idempotency-key': crypto.randomUUID() },
        );
      const unknown = await create({ items: [{ product_id: 'gold-bar', quantity: 1 }] });
      assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
      assert.equal(unknown.body.error?.param, 'cart.items[0].product_id');

      const created = await create(TWO_TOTES);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.order?.payment.status, 'requires_action');
      const orderId = created.body.order?.id as string;
      // The service holds what the catalogue charges, not the page's price.
      const held = await post(
        `${running.url}/sandbox/orders/lookup`,
        { order_id: orderId },
        { authorization: 'Bearer sk_test_sandbox' },
      );
      assert.deepEqual(held.body.order?.line_item_group?.total, { currency: 'ghs', value: 25_000 });

      const approved = await post(`${running.url}/sandbox/_sandbox/payments/approve`, { order_id: orderId });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      const lookup = await post(`${running.url}/api/checkout/lookup`, {
        order_id: orderId,
        lookup_token: created.body.lookup_token,
      });
      assert.equal(lookup.body.order?.payment.status, 'paid');

      // The page's lookup saw it paid: onPaid follows, and says so.
      await running.line((line) => line === `Shipment recorded for order ${orderId}`);
      const exited = once(running.child, 'exit');
      running.child.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null], 'a clean exit');
      assert.deepEqual(running.errors, [], 'no warning');
      assert.deepEqual(shipmentsIn(shop), [{ order_id: orderId }]);
      assert.equal(
        running.lines.filter((line) => line.startsWith('Shipment recorded')).length,
        1,
        running.lines.join('\n'),
      );
    } catch (error) {
      t.diagnostic(`the shop printed:\n${[...running.lines, ...running.errors].join('\n')}`);
      throw error;
    } finally {
      running.child.kill('SIGKILL');
    }

    // onPaid again for the same order, as after a crash inside it: nothing is added.
    const [order] = shipmentsIn(shop);
    const again = await runCommand(
      process.execPath,
      [
        '--input-type=module',
        '--eval',
        `import { closeShipments, shipOnce } from './shipments.js';
shipOnce({ id: ${JSON.stringify(order?.order_id)}, settledAt: Date.now() });
closeShipments();`,
      ],
      { cwd: shop },
    );
    assert.equal(again.code, 0, again.transcript);
    assert.equal(again.stdout, '', 'no second shipment recorded');
    assert.deepEqual(shipmentsIn(shop), [{ order_id: order?.order_id }]);
  });
});
