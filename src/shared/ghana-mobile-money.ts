import { type Issuer, NETWORKS } from './networks.js';

/** The network of each number prefix; detection only suggests, the shopper may choose another. */
const PREFIX_TO_ISSUER = new Map<string, Issuer>(
  Object.entries(NETWORKS).flatMap(([issuer, { prefixes }]) =>
    prefixes.map((prefix) => [prefix, issuer as Issuer] as const),
  ),
);

/** A Ghanaian mobile-money number in the two forms the service wants. */
export interface GhanaMobileNumber {
  /** Local form, `0241234567`: the payment method's `number`. */
  local: string;
  /** International form, `+233241234567`: the customer's `phone_number`. */
  international: string;
}

/**
 * Reads what a shopper typed: `024 123 4567`, `0241234567`, `233241234567`,
 * `+233 24 123 4567` (spaces, dashes, dots and brackets ignored). Returns null
 * unless it is a number of one of the known mobile-money prefixes.
 */
export function parseGhanaMobileNumber(input: string): GhanaMobileNumber | null {
  const local = localDigits(input);
  if (!/^0\d{9}$/.test(local) || !PREFIX_TO_ISSUER.has(local.slice(0, 3))) return null;
  return { local, international: `+233${local.slice(1)}` };
}

/** What a shopper typed without separators, `+233` or `233` read as the local `0`: `+233 24 1…` → `0241…`. */
function localDigits(input: string): string {
  return input.replace(/[\s\-.()]/g, '').replace(/^(?:\+233|233)/, '0');
}

/** A customer's `phone_number` in international form, `+233XXXXXXXXX`. */
export const INTERNATIONAL_PHONE_PATTERN = /^\+233\d{9}$/;

/**
 * True for a mobile-money `number` exactly as the service takes it: local
 * form, `0XXXXXXXXX`, of a known network prefix.
 */
export function isLocalMobileNumber(number: string): boolean {
  return /^0\d{9}$/.test(number) && parseGhanaMobileNumber(number) !== null;
}

/**
 * The network a number's prefix belongs to, as soon as the first three local
 * digits are typed; undefined for an unknown prefix.
 */
export function detectIssuer(input: string): Issuer | undefined {
  return PREFIX_TO_ISSUER.get(localDigits(input).slice(0, 3));
}
