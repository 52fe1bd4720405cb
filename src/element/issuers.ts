/**
 * Which networks the element offers: those its `issuers` attribute names,
 * in the network table's order. Their names and USSD codes are the table's.
 */
import { ISSUERS, type Issuer } from '../shared/networks.js';

/**
 * The networks an `issuers` attribute allows ("mtn, telecel"), in the
 * service's order; every network when the list is empty or names none we know.
 */
export function allowedIssuers(list: string | undefined): Issuer[] {
  const wanted = new Set((list ?? '').split(',').map((name) => name.trim().toLowerCase()));
  const allowed = ISSUERS.filter((issuer) => wanted.has(issuer));
  return allowed.length > 0 ? allowed : [...ISSUERS];
}
