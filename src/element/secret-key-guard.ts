/**
 * The element never takes a key. A secret key pasted into an
 * attribute, a property or the cart would be published to every visitor, so
 * the element refuses to work when it sees one.
 */

/**
 * `sk_live_…` / `sk_test_…` at the start of a value or after a separator, so
 * `?key=sk_live_…` inside a URL counts too while `desk_test_` does not.
 */
const SECRET_KEY_PATTERN = /(?:^|[^A-Za-z0-9])sk_(?:live|test)_/;

/**
 * True when `value`, or any string or key nested in it (a `cart`, the
 * `strings`), looks like a secret key. JSON.stringify does the walking; a
 * value it cannot walk (a circular cart) cannot be sent either.
 */
export function containsSecretKey(value: unknown): boolean {
  let found = false;
  try {
    JSON.stringify(value, (key, child: unknown) => {
      found ||= SECRET_KEY_PATTERN.test(key) || (typeof child === 'string' && SECRET_KEY_PATTERN.test(child));
      return child;
    });
  } catch {
    // Not JSON: nothing a page could have copied a key into.
  }
  return found;
}
