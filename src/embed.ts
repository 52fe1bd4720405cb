/**
 * The one-file embed (`dist/pay-checkout.embed.js`): the element with Lit
 * bundled, nothing else to load, registered as soon as the script runs.
 * French is in the bundle, registered as it loads, before
 * any checkout renders: with no other file to fetch, a French page draws
 * French from its first frame.
 */

// The element first: the French texts then come last in the bundle, within
// gzip's reach of the English ones and the templates that read them.
import './element/pay-checkout.js';
import { FR_STRINGS } from './element/locale/fr.js';
import { registerLocale } from './element/locale/loader.js';

registerLocale('fr', FR_STRINGS);
