/**
 * The demo page's own words in the checkout's two languages: every node of
 * index.html marked `data-text` (and the labels marked `data-label` and
 * `data-alt`), and the sentences the script writes. The language switch
 * names each language in its own; code (snippets, event names, order ids)
 * is never translated.
 */
import { formatAmount } from '../../src/element/format-amount.js';
import { listNetworks } from '../../src/shared/networks.js';
import type { DemoLocale } from '../demo-config.js';

/** The page's texts; functions take what they interpolate. */
export interface PageText {
  title: string;
  skipLink: string;
  settingsToggle: string;
  settingsLabel: string;
  themeLegend: string;
  themeLight: string;
  themeDark: string;
  brandLegend: string;
  brandGold: string;
  brandIndigo: string;
  localeLegend: string;
  productImageAlt: string;
  modeSandbox: string;
  modeService: string;
  introTitle: string;
  introLead: string;
  priceLabel: string;
  quantityLabel: string;
  shopNote: string;
  shopUnreachable: string;
  startOver: string;
  phoneTitle: string;
  phoneHint: string;
  eventsTitle: string;
  clear: string;
  clearEvents: string;
  eventsHint: string;
  serverTitle: string;
  serverHint: string;
  serverHintEnd: string;
  embedTitle: string;
  embedHint: string;
  copy: string;
  copyHtml: string;
  copyCss: string;
  copied: string;
  selected: string;
  numbersTitle: string;
  numbersHint: string;
  numbersCaption: string;
  numberColumn: string;
  payerColumn: string;
  endsColumn: string;
  declines: string;
  neverAnswers: string;
  thenTimeout: string;
  insufficientFunds: string;
  anyOther: string;
  /** Before the demo server said how long its payer takes. */
  approvesSoon: string;
  approvesAfter: (seconds: number) => string;
  approvesOnPhone: string;
  fourthTime: string;
  noPrompt: string;
  formAsks: string;
  footer: string;
  /** The merchant's-server view: an order the server watches. */
  watching: string;
  /** How each order settled, as the server heard it. */
  settled: Record<'paid' | 'failed' | 'expired', string>;
  calling: (settled: string, callback: string) => string;
  delivered: (settled: string, callback: string, time: string) => string;
  heard: (what: string) => string;
  /** What an order was for, as `onPaid` gets it: its cart's reference (or none), its items, the amount charged. */
  orderFor: (order: OrderFor) => string;
  /** A paid order whose checkout another order paid too (`otherPaidOrderIds`): the merchant refunds one. */
  paidTwice: (otherOrderIds: readonly string[]) => string;
  /** The name of an order's list of webhook events, for screen readers. */
  webhooksLabel: string;
  /** Where one webhook event stands: still being sent, delivered, or given up after the last attempt. */
  webhookState: Record<'pending' | 'delivered' | 'failed', string>;
  /** One attempt: its number, the receiver's HTTP status (`null`: no answer) and its time (HH:MM:SS, UTC). */
  webhookAttempt: (attempt: number, status: number | null, time: string) => string;
}

/** The parts of an order the merchant's-server view shows. */
interface OrderFor {
  reference: string | null;
  items: readonly { name: string; quantity: number }[];
  amount: { currency: string; value: number } | null;
}

/** `order` in words: reference, items and amount, the amount in `locale`'s format. */
function orderIn(locale: DemoLocale, noReference: string, order: OrderFor): string {
  const items = order.items.map((item) => `${item.quantity} × ${item.name}`).join(', ');
  const amount = order.amount && formatAmount(order.amount, locale);
  return [order.reference ?? noReference, items, amount].filter(Boolean).join(' · ');
}

/** The keys of the texts that index.html holds in `data-text` nodes. */
export type StaticTextKey = {
  [Key in keyof PageText]: PageText[Key] extends string ? Key : never;
}[keyof PageText];

/** The page's texts per language. */
export const PAGE_TEXT: Readonly<Record<DemoLocale, PageText>> = {
  en: {
    title: 'pay-checkout demo: mobile-money checkout in one tag',
    skipLink: 'Skip to the checkout',
    settingsToggle: 'Settings',
    settingsLabel: 'Demo settings',
    themeLegend: 'Theme',
    themeLight: 'Light',
    themeDark: 'Dark',
    brandLegend: 'Brand colour',
    brandGold: 'Gold',
    brandIndigo: 'Indigo',
    localeLegend: 'Checkout language',
    productImageAlt: 'A tote bag woven in a gold, green and red kente pattern, with brown handles',
    modeSandbox: 'sandbox · test mode',
    modeService: 'connected to the payments service',
    introTitle: 'Mobile-money checkout, in one tag',
    introLead: 'Buy the bag with any Ghanaian mobile-money number: it all runs on a sandbox, no money moves.',
    priceLabel: 'Price',
    quantityLabel: 'Quantity',
    shopNote: 'Priced on the server: the page sends the product and quantity, never an amount.',
    shopUnreachable: 'The demo server could not be reached: reload the page once it runs (npm start).',
    startOver: 'Start a new payment',
    phoneTitle: 'The payer’s phone',
    phoneHint: `The prompt the payer would get from ${listNetworks('or')} appears here: approve or decline it.`,
    eventsTitle: 'Events',
    clear: 'Clear',
    clearEvents: ' the events',
    eventsHint: 'Every DOM event the element fires, newest last.',
    serverTitle: 'Your server',
    serverHint: 'Each order as the merchant’s server sees it: created, watched, paid, then delivered to',
    serverHintEnd: ', even if the shopper closes the tab, with its cart’s reference, items and amount.',
    embedTitle: 'Embed it',
    embedHint:
      'The snippet for the settings above: one script tag with Subresource Integrity, the element, and its theme.',
    copy: 'Copy',
    copyHtml: ' the HTML',
    copyCss: ' the CSS',
    copied: 'Copied to the clipboard.',
    selected: 'Selected: press Ctrl-C (⌘-C) to copy.',
    numbersTitle: 'Test numbers',
    numbersHint: 'Any network. Every other valid number is approved after the sandbox’s delay.',
    numbersCaption: 'What the sandbox’s payer does for each test number',
    numberColumn: 'Number',
    payerColumn: 'The payer…',
    endsColumn: 'Checkout ends',
    declines: 'declines the prompt',
    neverAnswers: 'never answers (approve or decline it on the phone)',
    thenTimeout: ', then',
    insufficientFunds: 'has insufficient funds',
    anyOther: ', any other',
    approvesSoon: 'approves after a few seconds',
    approvesAfter: (seconds) => `approves after ${seconds} s (or at once with the phone’s Approve)`,
    approvesOnPhone: 'approves on their phone',
    fourthTime: 'any number, a 4th time within 10 minutes',
    noPrompt: 'gets no prompt: at most 3 payment requests go to one number in 10 minutes, whoever sends them',
    formAsks: 'the form asks to approve the one on the phone or wait',
    footer:
      'pay-checkout is open source (MIT). The element, the merchant relay and the sandbox are in this repository; see the README for embedding, the relay and security.',
    watching: 'Created; the server is watching it',
    settled: { paid: 'Paid', failed: 'Failed', expired: 'Expired' },
    calling: (settled, callback) => `${settled}; calling ${callback}`,
    delivered: (settled, callback, time) => `${settled}; delivered to ${callback} at ${time} UTC`,
    heard: (what) => `Your server heard: ${what}.`,
    orderFor: (order) => orderIn('en', 'no reference', order),
    paidTwice: (others) => `Paid twice: this checkout was also paid by ${others.join(', ')}. Refund one.`,
    webhooksLabel: 'Signed webhooks sent to your server',
    webhookState: { pending: 'webhook being sent', delivered: 'webhook delivered', failed: 'webhook failed' },
    webhookAttempt: (attempt, status, time) =>
      `attempt ${attempt}: ${status === null ? 'no answer' : `HTTP ${status}`} at ${time} UTC`,
  },
  fr: {
    title: 'Démo pay-checkout : le paiement mobile money en une balise',
    skipLink: 'Aller au paiement',
    settingsToggle: 'Réglages',
    settingsLabel: 'Réglages de la démo',
    themeLegend: 'Thème',
    themeLight: 'Clair',
    themeDark: 'Sombre',
    brandLegend: 'Couleur',
    brandGold: 'Or',
    brandIndigo: 'Indigo',
    localeLegend: 'Langue',
    productImageAlt: 'Un sac cabas tissé à motif kente or, vert et rouge, aux anses marron',
    modeSandbox: 'bac à sable · test',
    modeService: 'relié au service de paiement',
    introTitle: 'Le paiement mobile money, en une balise',
    introLead:
      'Payez le sac avec un numéro mobile money du Ghana : c’est un bac à sable, aucun argent ne bouge.',
    priceLabel: 'Prix',
    quantityLabel: 'Quantité',
    shopNote: 'Prix fixé par le serveur : la page envoie le produit et la quantité, jamais un montant.',
    shopUnreachable: 'Le serveur de la démo est injoignable : rechargez la page une fois lancé (npm start).',
    startOver: 'Nouveau paiement',
    phoneTitle: 'Le téléphone du payeur',
    phoneHint: `La demande que le payeur recevrait de ${listNetworks('ou')} s’affiche ici : validez-la ou refusez-la.`,
    eventsTitle: 'Événements',
    clear: 'Effacer',
    clearEvents: ' les événements',
    eventsHint: 'Chaque événement DOM émis par l’élément, le plus récent en dernier.',
    serverTitle: 'Votre serveur',
    serverHint: 'Chaque commande vue par le serveur du marchand : créée, suivie, payée, puis remise à',
    serverHintEnd:
      ', même si l’acheteur ferme l’onglet, avec la référence du panier, ses articles et le montant.',
    embedTitle: 'Intégrez-le',
    embedHint:
      'L’extrait pour les réglages ci-dessus : une balise script avec Subresource Integrity, l’élément et son thème.',
    copy: 'Copier',
    copyHtml: ' le HTML',
    copyCss: ' le CSS',
    copied: 'Copié dans le presse-papiers.',
    selected: 'Sélectionné : appuyez sur Ctrl-C (⌘-C) pour copier.',
    numbersTitle: 'Numéros de test',
    numbersHint: 'Tout réseau. Tout autre numéro valide est approuvé après le délai du bac à sable.',
    numbersCaption: 'Ce que fait le payeur du bac à sable pour chaque numéro de test',
    numberColumn: 'Numéro',
    payerColumn: 'Le payeur…',
    endsColumn: 'Le paiement finit',
    declines: 'refuse la demande',
    neverAnswers: 'ne répond jamais (validez ou refusez sur le téléphone)',
    thenTimeout: ', puis',
    insufficientFunds: 'n’a pas assez d’argent',
    anyOther: ', tout autre',
    approvesSoon: 'valide au bout de quelques secondes',
    approvesAfter: (seconds) =>
      `valide au bout de ${seconds} s (ou tout de suite avec « Valider » sur le téléphone)`,
    approvesOnPhone: 'valide sur son téléphone',
    fourthTime: 'tout numéro, une 4ᵉ fois en 10 minutes',
    noPrompt:
      'ne reçoit rien : au plus 3 demandes de paiement vont à un numéro en 10 minutes, quel qu’en soit l’envoyeur',
    formAsks: 'le formulaire demande de valider celle du téléphone ou d’attendre',
    footer:
      'pay-checkout est libre (MIT). L’élément, le relais du marchand et le bac à sable sont dans ce dépôt ; voir le README pour l’intégration, le relais et la sécurité.',
    watching: 'Créée ; le serveur la suit',
    settled: { paid: 'Payée', failed: 'Échouée', expired: 'Expirée' },
    calling: (settled, callback) => `${settled} ; appel de ${callback}`,
    delivered: (settled, callback, time) => `${settled} ; remise à ${callback} à ${time} UTC`,
    heard: (what) => `Votre serveur a reçu : ${what}.`,
    orderFor: (order) => orderIn('fr', 'sans référence', order),
    paidTwice: (others) =>
      `Payée deux fois : ce panier a aussi été payé par ${others.join(', ')}. Remboursez-en une.`,
    webhooksLabel: 'Webhooks signés envoyés à votre serveur',
    webhookState: {
      pending: 'webhook en cours d’envoi',
      delivered: 'webhook remis',
      failed: 'webhook en échec',
    },
    webhookAttempt: (attempt, status, time) =>
      `tentative ${attempt} : ${status === null ? 'sans réponse' : `HTTP ${status}`} à ${time} UTC`,
  },
};

/** Puts the page in `locale`: its language, its title and every `data-text` node. */
export function applyPageText(locale: DemoLocale): PageText {
  const text = PAGE_TEXT[locale];
  document.documentElement.lang = locale;
  document.title = text.title;
  for (const node of document.querySelectorAll<HTMLElement>('[data-text]')) {
    node.textContent = text[node.dataset.text as StaticTextKey] ?? node.textContent;
  }
  // Names that are attributes: a form's label, an image's text alternative.
  for (const node of document.querySelectorAll<HTMLElement>('[data-label]')) {
    node.setAttribute('aria-label', text[node.dataset.label as StaticTextKey] ?? '');
  }
  for (const node of document.querySelectorAll<HTMLImageElement>('img[data-alt]')) {
    node.alt = text[node.dataset.alt as StaticTextKey] ?? node.alt;
  }
  return text;
}
