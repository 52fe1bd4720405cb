/**
 * What the element shows for each mobile-money network: its name and the
 * USSD code a payer dials when the approval prompt does not reach the phone.
 */
import { ISSUERS, type Issuer } from '../shared/service-contract.js';

/** Display name and USSD fallback code of one network. */
export interface IssuerDisplay {
  /** The network's own name, not translated. */
  name: string;
  /** Dialled to find and approve a pending payment when no prompt arrives. */
  ussdCode: string;
}

/** Every network the service knows, in display order. */
export const ISSUER_DISPLAY: Readonly<Record<Issuer, IssuerDisplay>> = {
  mtn: { name: 'MTN', ussdCode: '*170#' },
  telecel: { name: 'Telecel', ussdCode: '*110#' },
  at: { name: 'AT', ussdCode: '*110#' },
};

/**
 * The networks an `issuers` attribute allows ("mtn, telecel"), in the
 * service's order; every network when the list is empty or names none we know.
 */
export function allowedIssuers(list: string | undefined): Issuer[] {
  const wanted = new Set((list ?? '').split(',').map((name) => name.trim().toLowerCase()));
  const allowed = ISSUERS.filter((issuer) => wanted.has(issuer));
  return allowed.length > 0 ? allowed : [...ISSUERS];
}
