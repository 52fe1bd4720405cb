/**
 * Who `pay-checkout check-relay` pretends to be. It creates real orders
 * through the merchant's relay, so it pays only from the sandbox's test
 * numbers that never move money: nobody's phone is prompted
 * and nothing is paid. Its name and numbers are also what the privacy check
 * looks for in every answer.
 */
import { SANDBOX_TEST_NUMBERS } from '../sandbox/test-numbers.js';

/** The name the checker sends; it must never come back in an answer. */
const CHECKER_NAME = 'Abena Relaycheck';
/** The name of the "same key, another body" create. */
export const OTHER_NAME = 'Kwesi Relaycheck';

/**
 * The numbers the checker may pay from, in the order it tries them: the payer
 * who never answers first; the two who refuse when an earlier run within ten
 * minutes spent the first one's three prompts.
 */
export const CHECKER_NUMBERS: readonly string[] = [
  SANDBOX_TEST_NUMBERS.neverAnswers,
  SANDBOX_TEST_NUMBERS.declines,
  SANDBOX_TEST_NUMBERS.insufficientFunds,
];

/** What each of {@link CHECKER_NUMBERS} does in the sandbox, for the help and the report. */
export const CHECKER_NUMBER_OUTCOMES: Readonly<Record<string, string>> = {
  [SANDBOX_TEST_NUMBERS.neverAnswers]: 'the payer never answers',
  [SANDBOX_TEST_NUMBERS.declines]: 'the payer declines',
  [SANDBOX_TEST_NUMBERS.insufficientFunds]: 'insufficient funds',
};

/**
 * What the shopper pays for: a cart the relay prices, or a checkout the
 * shop's backend created, by its client secret. Also the price request's body.
 */
export type Purchase = { cart: unknown } | { checkout: string };

/** The create body `<pay-checkout>` would send for `name` paying for `purchase` from `localNumber`. */
export function checkoutIntentFor(localNumber: string, purchase: Purchase, name = CHECKER_NAME) {
  return {
    customer_data: { name, phone_number: `+233${localNumber.slice(1)}` },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: localNumber } },
    ...purchase,
  };
}

/**
 * Every spelling of the checker's personal data an answer could leak: the
 * names and their parts, each number local, international (with or without
 * `+`, found through its nine national digits) and spaced as people write it.
 */
export function personalDataForms(localNumbers: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const name of [CHECKER_NAME, OTHER_NAME]) {
    forms.add(name.toLowerCase());
    for (const part of name.split(' ')) forms.add(part.toLowerCase());
  }
  for (const local of localNumbers) {
    const national = local.slice(1);
    forms.add(national);
    forms.add(`${local.slice(0, 3)} ${local.slice(3, 6)} ${local.slice(6)}`);
    forms.add(`${national.slice(0, 2)} ${national.slice(2, 5)} ${national.slice(5)}`);
  }
  return [...forms];
}
