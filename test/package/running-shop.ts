/**
 * The example shop (examples/shop/) as its package test runs it: `node
 * server.js` in an installed copy, its output read line by line, requests
 * made as its page and the payer would, and its own shipments table read
 * straight from its SQLite file. Not a test file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'libsql';
import { freePort } from '../fixtures/free-port.js';

/** The shop's server, running as its own process. */
export interface RunningShop {
  url: string;
  child: ChildProcess;
  /** What it printed on stdout, line by line. */
  lines: string[];
  /** What it printed on stderr: warnings a merchant would see. */
  errors: string[];
  /** Resolves with the first line (printed or to come) that `matches`; rejects if the shop exits first. */
  line(matches: (line: string) => boolean): Promise<string>;
}

/** Every shop started, so the test file can kill what a failed test left running. */
export const runningShops = new Set<ChildProcess>();

/**
 * Starts `node server.js` in `shop` (or `npm start`, as a merchant types it) with `env` (PATH and
 * PORT added) and resolves once it says where it listens.
 */
export async function startShop(
  shop: string,
  env: Record<string, string>,
  how: 'node' | 'npm start' = 'node',
): Promise<RunningShop & { port: number }> {
  const port = await freePort();
  const [command, args] = how === 'node' ? [process.execPath, ['server.js']] : ['npm', ['start']];
  const child = spawn(command, args, {
    cwd: shop,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ...env },
  });
  runningShops.add(child);
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
  return { url, port, child, lines, errors, line };
}

/** A shopper's browser at a shop: the cookie its cart session left, sent with each request. */
export interface ShopperBrowser {
  cookie: string;
}

/** Puts `items` in the browser's cart as the shop's page does (`PUT /api/cart`); answers the cart. */
export async function chooseItems(
  shop: RunningShop,
  browser: ShopperBrowser,
  items: { product_id: string; quantity: number }[],
): Promise<{ status: number; cart: { reference: string; items: unknown[] } }> {
  const response = await fetch(`${shop.url}/api/cart`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie: browser.cookie },
    body: JSON.stringify({ items }),
  });
  const session = /^cart_session=[\w-]+/.exec(response.headers.get('set-cookie') ?? '')?.[0];
  if (session) browser.cookie = session;
  return {
    status: response.status,
    cart: (await response.json()) as { reference: string; items: unknown[] },
  };
}

/** Kills `shop` with SIGKILL and resolves once it is gone. */
export async function killShop(shop: RunningShop): Promise<void> {
  const exited = once(shop.child, 'exit');
  shop.child.kill('SIGKILL');
  await exited;
}

/** What the relay and the sandbox answer, as far as the tests read it. */
export interface Answer {
  error?: { code: string; param?: string };
  order?: {
    id: string;
    amount?: { currency: string; value: number };
    payment: { status: string };
    line_item_group?: { total: { currency: string; value: number } };
  };
  lookup_token?: string;
  reference?: string | null;
}

/** POSTs JSON as the page (or the payer's control surface) does; answers the status and the body. */
export async function post(
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

/** One row of the shop's shipments table, its items parsed. */
export interface Shipment {
  cart_id: string;
  order_id: string;
  items: { name: string; quantity: number }[];
  amount: number;
}

/** The rows of the shop's own shipments table, by cart. */
export function shipmentsIn(shop: string): Shipment[] {
  const database = new Database(join(shop, '.data', 'shop.db'), { readonly: true });
  try {
    const rows = database
      .prepare('SELECT cart_id, order_id, items, amount FROM shipments ORDER BY cart_id')
      .all() as (Omit<Shipment, 'items'> & { items: string })[];
    return rows.map((row) => ({ ...row, items: JSON.parse(row.items) }));
  } finally {
    database.close();
  }
}

/** The rows of the relay's journal beside the shop's database: order ids and delivery times. */
export function journalRows(shop: string): { order_id: string | null; delivered_at: number | null }[] {
  const database = new Database(join(shop, '.data', 'pay-checkout.db'), { readonly: true });
  try {
    return database.prepare('SELECT order_id, delivered_at FROM pay_checkout_journal').all() as {
      order_id: string | null;
      delivered_at: number | null;
    }[];
  } finally {
    database.close();
  }
}
