/**
 * Styles of `<pay-checkout>`. Public `--pay-checkout-*` properties map to
 * private `--_*` ones on `:host` (habit 7), with light and dark defaults that
 * keep text at 4.5:1 or more. Adopted as a constructable stylesheet, so it
 * needs no inline `<style>` under `style-src 'self'`.
 */
import { unsafeCSS } from 'lit';

/**
 * The element's stylesheet. Our own constant text, so through `unsafeCSS`
 * rather than the `css` tag, whose checks of interpolated values (there are
 * none) would cost the embed 150 B gzip.
 */
export const payCheckoutStyles = unsafeCSS(`
:host {
  --_radius: var(--pay-checkout-radius, 0.5rem);
  --_spacing: var(--pay-checkout-spacing, 1rem);
  --_background: var(--pay-checkout-background-color, #fff);
  --_text: var(--pay-checkout-text-color, #1b1b1f);
  --_muted: var(--pay-checkout-muted-color, #54565b);
  --_border: var(--pay-checkout-border-color, #76787e);
  --_accent: var(--pay-checkout-accent-color, #0a6b35);
  --_on-accent: var(--pay-checkout-on-accent-color, #fff);
  --_error: var(--pay-checkout-error-color, #b3261e);
  --_focus: var(--pay-checkout-focus-color, #1a5fd0);
  display: block;
  position: relative;
  box-sizing: border-box;
  max-inline-size: var(--pay-checkout-max-width, 28rem);
  /* The form's height, so the screens after it keep the page still; a page reserves as much before the script runs (pay-checkout:not(:defined)). */
  min-block-size: 30em;
  padding: var(--_spacing);
  border-radius: var(--_radius);
  background: var(--_background);
  color: var(--_text);
  font: var(--pay-checkout-font-size, 1rem) / 1.5 var(--pay-checkout-font-family, system-ui, sans-serif);
  overflow-wrap: anywhere;
}
@media (prefers-color-scheme: dark) {
  :host {
    --_background: var(--pay-checkout-background-color, #17181b);
    --_text: var(--pay-checkout-text-color, #f1f1f3);
    --_muted: var(--pay-checkout-muted-color, #b9bbc1);
    --_border: var(--pay-checkout-border-color, #8d9097);
    --_accent: var(--pay-checkout-accent-color, #7fd49a);
    --_on-accent: var(--pay-checkout-on-accent-color, #0b1f12);
    --_error: var(--pay-checkout-error-color, #ffb4ab);
    --_focus: var(--pay-checkout-focus-color, #7ab8ff);
  }
}
:host([hidden]) { display: none; }
* { box-sizing: inherit; }
h2 { margin: 0 0 0.75rem; font-size: 1.25em; line-height: 1.3; }
h2:focus:not(:focus-visible) { outline: none; }
p, dl { margin: 0 0 0.75rem; }
form, .field { display: grid; gap: var(--_spacing); }
.field { gap: 0.25rem; }
fieldset { display: contents; }
label, .amount, .countdown, dd { font-weight: 600; }
input, select, button { inline-size: 100%; border-radius: var(--_radius); font: inherit; }
/* 16px at least, or phones zoom into the field. */
input, select { min-block-size: 2.75rem; padding: 0.5rem 0.75rem; border: 1px solid var(--_border); background: var(--_background); color: inherit; font-size: max(1rem, 1em); }
[aria-invalid=true] { border: 2px solid var(--_error); }
:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
.hint, .error, dt { margin: 0; color: var(--_muted); font-size: 0.875em; }
.error, .state-failed h2, .state-error h2 { color: var(--_error); font-weight: 600; }
/*
 * A message shown as the shopper leaves a field never moves what is below it, such as the Pay button under
 * their pointer: each text field keeps a line for it, and the number's takes its hint's place, two lines high.
 * The room kept reaches into the space between fields (the negative margin), so the form grows little.
 */
.error { min-block-size: 1.5em; margin-block-end: calc(-1 * var(--_spacing)); }
#issuer-error:empty { display: none; }
#number-error, #number-hint { grid-area: 3 / 1; }
#number-error { min-block-size: 3em; }
.error:not(:empty) + .hint { visibility: hidden; }
.amount { display: flex; justify-content: space-between; }
button { display: flex; align-items: center; justify-content: center; gap: 0.5rem; min-block-size: 3rem; padding: 0.5rem 1rem; border: 2px solid var(--_accent); background: var(--_accent); color: var(--_on-accent); font-weight: 700; cursor: pointer; }
/* The lesser action: outlined, and a space away from the one above it, so neither is pressed for the other. */
.secondary { margin-block-start: var(--_spacing); border-color: var(--_border); background: none; color: inherit; }
[aria-busy=true] { cursor: progress; }
.spinner { inline-size: 1em; block-size: 1em; border: 2px solid; border-inline-end-color: transparent; border-radius: 50%; animation: spin 0.8s linear infinite; }
@keyframes spin { to { transform: rotate(1turn); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; border-style: dotted; } }
.countdown { font-variant-numeric: tabular-nums; }
.note { padding-inline-start: 0.75rem; border-inline-start: 4px solid var(--_border); }
dd { margin: 0 0 0.5rem; overflow-wrap: break-word; }
/* The order id, to read out to the shop: one line of its own, unbroken unless wider than the line. */
dd:first-of-type { font: 0.875em ui-monospace, monospace; }
.visually-hidden { position: absolute; inline-size: 1px; block-size: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`);
