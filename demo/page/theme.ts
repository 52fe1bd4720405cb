/**
 * The element's public custom properties the demo's themes set (see
 * `demo/styles.css`, `pay-checkout { … }`). The embed snippet copies their
 * current values, so what a merchant pastes looks like what they saw.
 */
export const THEME_PROPERTY_NAMES = [
  '--pay-checkout-accent-color',
  '--pay-checkout-on-accent-color',
  '--pay-checkout-background-color',
  '--pay-checkout-text-color',
  '--pay-checkout-muted-color',
  '--pay-checkout-border-color',
  '--pay-checkout-focus-color',
  '--pay-checkout-error-color',
  '--pay-checkout-radius',
  '--pay-checkout-font-family',
] as const;
