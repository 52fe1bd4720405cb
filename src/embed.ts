/**
 * The one-file embed (`dist/pay-checkout.embed.js`): the element with Lit and
 * zod/mini bundled, registered as soon as the script runs.
 */
import './element/pay-checkout.js';
