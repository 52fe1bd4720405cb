/**
 * The `user-agent` of every webhook request: `pay-checkout/<version>`, so a
 * receiver's logs tell which release sent it. The version is held equal to
 * package.json's by a test.
 */

/** This release's version. */
export const PAY_CHECKOUT_VERSION = '0.1.0';

/** The `user-agent` header webhooks are sent with. */
export const WEBHOOK_USER_AGENT = `pay-checkout/${PAY_CHECKOUT_VERSION}`;
