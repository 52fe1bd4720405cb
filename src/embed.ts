/**
 * The one-file embed (`dist/pay-checkout.embed.js`): the element with Lit
 * bundled, nothing else to load, registered as soon as the script runs (contract §1).
 */
import './element/pay-checkout.js';
