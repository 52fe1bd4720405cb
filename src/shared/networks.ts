/**
 * The mobile-money networks, one entry each, in the order the checkout lists
 * them. The key is the service's `issuer` code; the issuer list the wire and
 * the sandbox accept, number detection, the element's names and USSD codes,
 * and the demo's names and phrases are all read from this table. Adding a
 * network is one entry here; the compiler then asks for its wallet name in the
 * demo, and test/node/shared/networks.test.ts for its colour in the demo's styles and
 * for each page that lists the networks.
 *
 * Plain object literals: the browser bundles this table, so nothing here may
 * pull in more than it.
 */

/** What the checkout knows of one network. */
export interface Network {
  /** The network's own name, never translated: `MTN`. */
  readonly name: string;
  /** Dialled to find and approve a pending payment when no prompt reaches the phone. */
  readonly ussdCode: string;
  /**
   * The first three digits of its numbers in local form. Detection only
   * suggests a network: numbers move between networks, so the shopper can
   * always choose another.
   */
  readonly prefixes: readonly string[];
}

/** Every network the service knows, by `issuer` code, in display order. */
export const NETWORKS = {
  mtn: { name: 'MTN', ussdCode: '*170#', prefixes: ['024', '025', '053', '054', '055', '059'] },
  telecel: { name: 'Telecel', ussdCode: '*110#', prefixes: ['020', '050'] },
  at: { name: 'AT', ussdCode: '*110#', prefixes: ['026', '027', '056', '057'] },
} as const satisfies Readonly<Record<string, Network>>;

/** One mobile-money network's `issuer` code. */
export type Issuer = keyof typeof NETWORKS;

/** The networks' `issuer` codes in display order: the wire's and the sandbox's enum (never empty). */
export const ISSUERS: readonly [Issuer, ...Issuer[]] = Object.keys(NETWORKS) as [Issuer, ...Issuer[]];

/** True for a known network's `issuer` code. */
export function isIssuer(value: unknown): value is Issuer {
  return (ISSUERS as readonly unknown[]).includes(value);
}

/**
 * The networks as a sentence lists them, `MTN, Telecel or AT` (or their codes,
 * `mtn, telecel or at`), `or` being the word for it in the sentence's language.
 */
export function listNetworks(or: string, say: 'name' | 'issuer' = 'name'): string {
  const words = ISSUERS.map((issuer) => (say === 'name' ? NETWORKS[issuer].name : issuer));
  const last = words.pop();
  return words.length === 0 ? `${last}` : `${words.join(', ')} ${or} ${last}`;
}
