/**
 * The element's French texts. A module of their own: the npm entry fetches
 * it the first time a checkout speaks French, so English pages never
 * download it; the embed bundles it (see `loader.ts`).
 */
import type { PayCheckoutStrings } from './strings.js';

/** French, for `locale="fr"` or the nearest `lang="fr…"`. */
export const FR_STRINGS: PayCheckoutStrings = {
  formTitle: 'Payer par mobile money',
  amountLabel: 'Total',
  nameLabel: 'Votre nom',
  numberLabel: 'Numéro mobile money',
  numberHint: 'Par exemple 024 123 4567',
  issuerLabel: 'Réseau',
  issuerPlaceholder: 'Choisissez votre réseau',
  pay: (amount) => `Payer ${amount}`.trim(),
  nameRequired: 'Saisissez votre nom.',
  nameTooLong: (maxLength) => `${maxLength} caractères au plus.`,
  nameInvalid: 'La boutique n’a pas pu accepter ce nom.',
  numberRequired: 'Saisissez votre numéro mobile money.',
  numberInvalid: 'Saisissez un numéro du Ghana, par exemple 024 123 4567.',
  numberTooManyPrompts: (minutes) =>
    `Trop de demandes de paiement vers ce numéro : approuvez celle reçue sur votre téléphone ou attendez ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  issuerRequired: 'Choisissez votre réseau.',
  earlierRequestOpen: 'Si la demande précédente arrive sur l’autre téléphone, refusez-la.',
  amountChanged: 'Le prix a changé : vérifiez le total, puis payez.',
  itemsLabel: 'Articles',
  submitting: 'Envoi de la demande de paiement…',
  requiresActionTitle: 'Approuvez la demande sur votre téléphone',
  requiresActionBody: (number, network) =>
    `Demande de paiement envoyée${number ? ` au ${number}` : ''}${network ? ` (${network})` : ''}. Saisissez votre code sur le téléphone pour l’approuver.`,
  ussdFallback: (ussdCode) =>
    `Pas de demande ? Composez ${ussdCode} et approuvez-la dans vos approbations en attente.`,
  timeLeft: (time) => `Temps restant : ${time}`,
  useAnotherNumber: 'Utiliser un autre numéro',
  askedAgain: (number) => `Demande déjà envoyée au ${number} : approuvez-la sur ce téléphone.`,
  confirmAnother: (number) =>
    `La demande au ${number || 'premier téléphone'} peut encore être approuvée : approuver les deux, c’est payer deux fois.`,
  keepWaiting: 'Continuer d’attendre',
  paidMoreThanOnce: 'Vous avez payé deux fois. La boutique est prévenue :',
  offline: 'Vous êtes hors ligne. Nous vérifierons dès votre retour.',
  connectionTrouble: 'Connexion difficile. Vérification en cours.',
  paidTitle: 'Paiement reçu',
  paidBody: (amount) => `Merci. Vous avez payé ${amount || 'le montant dû'}.`,
  declineOtherRequest: 'Si une autre demande de paiement vous parvient, refusez-la.',
  orderLabel: 'Commande',
  referenceLabel: 'Référence',
  timeLabel: 'Heure',
  time: (ms) => new Date(ms).toLocaleString('fr'),
  failedTitle: 'Paiement non effectué',
  failedReason: (reason) =>
    `${{ failed: 'Le paiement a été refusé ou a échoué.', declined: 'Vous avez refusé la demande.', insufficient_funds: 'Solde insuffisant : rechargez, puis réessayez.', cancelled: 'Le paiement a été annulé.', expired: 'La demande a expiré avant l’approbation.' }[reason]} Aucun argent n’a été prélevé.`,
  tryAgain: 'Réessayer',
  timeoutTitle: 'Pas encore de réponse',
  timeoutBody: 'Votre paiement peut encore aboutir : ne payez pas de nouveau. Nous continuons de vérifier.',
  checkAgain: 'Vérifier de nouveau',
  errorTitle: 'Un problème est survenu',
  errorRetryable: 'Le service de paiement est injoignable. Réessayez : vous ne serez pas débité deux fois.',
  errorLookup:
    'Impossible de vérifier votre paiement. Ne payez pas de nouveau : contactez la boutique avec votre numéro de commande.',
  errorConfiguration: 'Ce paiement n’est pas configuré correctement. Veuillez contacter la boutique.',
};
