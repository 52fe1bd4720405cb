/** What the phone mock-up says, in the checkout's two languages. */
import type { DemoLocale } from '../demo-config.js';

/** The phone mock-up's texts; functions take what they interpolate. */
export interface PhoneStrings {
  homeTitle: string;
  homeBody: string;
  serviceBody: string;
  loading: string;
  promptLead: (merchant: string) => string;
  amountLabel: string;
  fromLabel: string;
  referenceLabel: string;
  approve: string;
  decline: string;
  approving: string;
  declining: string;
  autoApprove: (seconds: string) => string;
  timedOut: string;
  paidTitle: string;
  /** `amount` is '' until the prompt is read. */
  paidBody: (amount: string, merchant: string) => string;
  /** Why the payment failed, as the wallet tells its owner: what happened, and that no money moved. */
  failed: Record<PhoneFailure, { title: string; body: string }>;
  unreachable: string;
  screenLabel: string;
}

/** What the wallet says of a failed payment: the payer's own decline, an empty wallet, or anything else. */
export type PhoneFailure = 'declined' | 'insufficient_funds' | 'other';

/** The phone's texts per language. */
export const PHONE_STRINGS: Readonly<Record<DemoLocale, PhoneStrings>> = {
  en: {
    homeTitle: 'No payment request',
    homeBody: 'When the shop asks for payment, the prompt appears here.',
    serviceBody: 'This demo pays through a real service: approve the prompt on your own phone.',
    loading: 'Receiving a payment request…',
    promptLead: (merchant) => `${merchant} is asking you to pay`,
    amountLabel: 'Amount',
    fromLabel: 'From wallet',
    referenceLabel: 'Reference',
    approve: 'Approve',
    decline: 'Decline',
    approving: 'Approving…',
    declining: 'Declining…',
    autoApprove: (seconds) =>
      `Other than the test numbers, the sandbox’s payer approves by itself after ${seconds} s.`,
    timedOut: 'The shop stopped waiting, but this request is still open.',
    paidTitle: 'Payment sent',
    paidBody: (amount, merchant) =>
      sentence(amount ? `You paid ${amount} to ${merchant}` : `You paid ${merchant}`),
    failed: {
      declined: { title: 'Payment declined', body: 'You declined this request. No money left your wallet.' },
      insufficient_funds: {
        title: 'Not enough money',
        body: 'Your wallet could not cover this payment. No money left it.',
      },
      other: { title: 'Payment not made', body: 'No money left your wallet.' },
    },
    unreachable: 'The phone could not reach the sandbox. Try again.',
    screenLabel: 'Phone screen',
  },
  fr: {
    homeTitle: 'Aucune demande de paiement',
    homeBody: 'Quand la boutique demande un paiement, la demande s’affiche ici.',
    serviceBody: 'Cette démo paie par un vrai service : validez la demande sur votre propre téléphone.',
    loading: 'Réception d’une demande de paiement…',
    promptLead: (merchant) => `${merchant} vous demande de payer`,
    amountLabel: 'Montant',
    fromLabel: 'Depuis le portefeuille',
    referenceLabel: 'Référence',
    approve: 'Valider',
    decline: 'Refuser',
    approving: 'Validation…',
    declining: 'Refus…',
    autoApprove: (seconds) =>
      `Hors numéros de test, le payeur du bac à sable valide seul au bout de ${seconds} s.`,
    timedOut: 'La boutique a cessé d’attendre, mais la demande reste ouverte.',
    paidTitle: 'Paiement envoyé',
    paidBody: (amount, merchant) =>
      sentence(amount ? `Vous avez payé ${amount} à ${merchant}` : `Vous avez payé ${merchant}`),
    failed: {
      declined: {
        title: 'Paiement refusé',
        body: 'Vous avez refusé cette demande. Aucun argent n’a quitté votre portefeuille.',
      },
      insufficient_funds: {
        title: 'Solde insuffisant',
        body: 'Votre portefeuille ne couvre pas ce paiement. Aucun argent n’en est sorti.',
      },
      other: { title: 'Paiement non effectué', body: 'Aucun argent n’a quitté votre portefeuille.' },
    },
    unreachable: 'Le téléphone n’a pas pu joindre le bac à sable. Réessayez.',
    screenLabel: 'Écran du téléphone',
  },
};

/** Ends `text` with a full stop, unless it already ends with one ("Kente & Co."). */
function sentence(text: string): string {
  return text.endsWith('.') ? text : `${text}.`;
}
