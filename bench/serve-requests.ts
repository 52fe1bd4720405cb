/**
 * The browser requests bench/serve.bench.ts sends both relays, one shopper
 * each: every request comes from another client address (the relays trust
 * one proxy, whose `X-Forwarded-For` names it) and every create pays from
 * another number at most three times, so the default limits (creates and
 * lookups per client, prompts per number) are paid for on every request and
 * refuse none. The counters run across every run of the benchmark, so no
 * run reuses what an earlier one spent.
 */
import { createLookupTokens } from '../src/server/node.js';
import { customerPayingFrom } from '../test/fixtures/checkout-data.js';
import { LOOKUP_SECRET } from '../test/fixtures/relay.js';
import type { LoadOptions } from './lib.js';
import { SHOP_ORIGIN } from './serve-children.js';

/** What one request adds to the load's template: its body and headers. */
type NextRequest = NonNullable<LoadOptions['next']>;

/** Creates per number: the default prompt limit allows 3 in 10 minutes. */
const CREATES_PER_NUMBER = 3;
/** The first number of the benchmark's shoppers: clear of the sandbox's test numbers (024 400 000x). */
const FIRST_NUMBER = 5_000_000;

let shoppers = 0;
let creates = 0;

/** A client address of its own for each shopper: 10.0.0.0/8 holds 16 million. */
function addressOf(shopper: number): string {
  return `10.${(shopper >> 16) & 255}.${(shopper >> 8) & 255}.${shopper & 255}`;
}

/** The headers every browser request carries, from the shopper `shopper`. */
function browserHeaders(shopper: number): Record<string, string> {
  return { 'x-forwarded-for': addressOf(shopper), origin: SHOP_ORIGIN };
}

/**
 * Lookups of the sandbox's `orderIds` in turn, each with its token: each
 * order is looked up again only after every other one, past the relays' 2 s
 * of sharing, so every lookup costs its whole work.
 */
export async function lookupRequests(orderIds: readonly string[]): Promise<NextRequest> {
  const tokens = createLookupTokens(LOOKUP_SECRET, { maxRememberedOrders: 1 });
  const bodies = await Promise.all(
    orderIds.map(async (id) => JSON.stringify({ order_id: id, lookup_token: await tokens.sign(id) })),
  );
  let next = 0;
  return () => {
    const shopper = shoppers++;
    return { body: bodies[next++ % bodies.length] as string, headers: browserHeaders(shopper) };
  };
}

/** Creates by new shoppers, a tote each, with a fresh idempotency key each. */
export function createRequests(): NextRequest {
  return () => {
    const shopper = shoppers++;
    const number = `024${FIRST_NUMBER + Math.floor(creates++ / CREATES_PER_NUMBER)}`;
    const body = JSON.stringify({
      ...customerPayingFrom(number),
      cart: { items: [{ sku: 'tote', quantity: 1 }] },
    });
    return {
      body,
      headers: { ...browserHeaders(shopper), 'idempotency-key': `bench-serve-create-${shopper}` },
    };
  };
}
