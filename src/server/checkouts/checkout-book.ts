/**
 * The checkouts of one relay: `relay.checkouts` for the merchant's server
 * (create, get), and what the browser routes read with a client secret.
 * Everything is in the journal, so every process of a fleet reads the same
 * checkout; this process keeps nothing.
 *
 * A client secret opens its checkout only when it is of the right form, names
 * a checkout the journal holds, matches its digest and, for a checkout bound
 * to an origin, comes from a page of that origin: every other case reads the
 * same `undefined`, so a guess learns nothing from the answer.
 */
import type { Clock } from '../../shared/clock.js';
import type { Journal, JournalCheckout } from '../journal/journal.js';
import { MAX_ORDERS_PER_REFERENCE } from '../journal/journal-order.js';
import { type CheckoutSecrets, checkoutIdOf, newCheckoutSecret } from '../tokens/checkout-secret.js';
import { checkCheckoutInput } from './checkout-input.js';
import { type ServerCheckout, type ServerCheckouts, serverCheckoutOf } from './server-checkout.js';

/** A checkout a client secret opened: as stored, and as read now. */
export interface OpenedCheckout {
  stored: JournalCheckout;
  checkout: ServerCheckout;
}

/** `relay.checkouts`, and what the browser routes read with a client secret. */
export interface CheckoutBook extends ServerCheckouts {
  /**
   * The checkout `clientSecret` opens for `request` (its `Origin`), or
   * `undefined` for a malformed, unknown or wrong secret and another origin alike.
   */
  open(clientSecret: unknown, request: Request): Promise<OpenedCheckout | undefined>;
}

/** What the book reads: the journal (none: every call names the `journal` option), the secrets' digests, the clock and the relay's origins. */
export interface CheckoutBookOptions {
  journal: Journal | undefined;
  secrets: CheckoutSecrets;
  clock: Clock;
  allowedOrigins: ReadonlySet<string>;
}

function needsJournal(method: string): Error {
  return new Error(
    `relay.checkouts.${method} reads and writes the order journal: give createCheckoutRelay a journal (journal: await openJournal('sqlite:.data/pay-checkout.db')).`,
  );
}

/** The checkouts of a relay on `options.journal`. */
export function createCheckoutBook(options: CheckoutBookOptions): CheckoutBook {
  const { journal, secrets, clock, allowedOrigins } = options;

  async function read(stored: JournalCheckout, from: Journal): Promise<ServerCheckout> {
    const orders = await from.ordersByReference(stored.reference, MAX_ORDERS_PER_REFERENCE);
    return serverCheckoutOf(stored, orders, clock.now());
  }

  return {
    async create(input) {
      // Checked first: a merchant's mistake is named whether or not there is a journal.
      const checked = checkCheckoutInput(input, allowedOrigins);
      if (!journal) throw needsJournal('create');
      const { id, clientSecret } = newCheckoutSecret();
      const createdAt = clock.now();
      const value = checked.lineItems.reduce((sum, item) => sum + item.unitPrice.value * item.quantity, 0);
      const stored: JournalCheckout = {
        id,
        secretDigest: await secrets.digestOf(clientSecret),
        reference: checked.reference,
        lineItems: checked.lineItems,
        metadata: checked.metadata,
        amount: { currency: checked.lineItems[0]?.unitPrice.currency ?? 'ghs', value },
        origin: checked.origin,
        createdAt,
        expiresAt: createdAt + checked.expiresInMs,
      };
      await journal.recordCheckout(stored);
      return { ...(await read(stored, journal)), clientSecret };
    },
    async get(id) {
      if (!journal) throw needsJournal('get');
      const stored = await journal.readCheckout(String(id));
      return stored && read(stored, journal);
    },
    async open(clientSecret, request) {
      const id = checkoutIdOf(clientSecret);
      // Without a journal no checkout was ever created: nothing opens.
      if (id === undefined || !journal) return undefined;
      const stored = await journal.readCheckout(id);
      // The digest is computed for an unknown id too: the time taken does not tell ids apart.
      const matched = await secrets.matches(clientSecret as string, stored?.secretDigest ?? '');
      if (!stored || !matched) return undefined;
      if (stored.origin !== null && request.headers.get('origin') !== stored.origin) return undefined;
      return { stored, checkout: await read(stored, journal) };
    },
  };
}

/** The book of a relay with no checkouts to read: every client secret opens nothing. */
export const NO_CHECKOUT_BOOK: CheckoutBook = {
  create: () => Promise.reject(needsJournal('create')),
  get: () => Promise.reject(needsJournal('get')),
  open: async () => undefined,
};
