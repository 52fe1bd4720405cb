/**
 * The sandbox's test numbers: each makes the simulated payer
 * answer in one way, on any network. Every other valid number approves.
 */
export const SANDBOX_TEST_NUMBERS = {
  declines: '0244000002',
  neverAnswers: '0244000003',
  insufficientFunds: '0244000004',
} as const;
