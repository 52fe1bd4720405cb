/**
 * The element's defaults, in one place: the element's properties, its
 * session and poller, its views and the custom-elements manifest (whose
 * build resolves the names below to their values) all read them here.
 */

/** `currency` when the page sets none. */
export const DEFAULT_CURRENCY = 'ghs';

/** How long the cart stays as the page set it before the element asks `price-url` to price it: a page setting it in bursts costs one request. */
export const PRICE_DEBOUNCE_MS = 250;

/** `poll-interval` when the attribute is missing or not a number (every 2 to 5 seconds, as the service asks). */
export const POLL_INTERVAL_DEFAULT_MS = 3_000;

/** `poll-timeout` when the attribute is missing or not a positive number: six minutes to approve. */
export const POLL_TIMEOUT_DEFAULT_MS = 360_000;
