/**
 * The demo page builds its DOM with `createElement` and `textContent` only:
 * no HTML string ever meets a sink, which is what lets the page keep
 * `require-trusted-types-for 'script'` in its CSP.
 */

/** A child of {@link createNode}: a node, or text to put in a text node. */
export type Child = Node | string | false | null | undefined;

/** Attributes and class of a new element; `false` and `undefined` leave an attribute out. */
export interface NodeOptions {
  className?: string;
  attributes?: Record<string, string | boolean | undefined>;
}

/** A new element with its class, attributes and children (text children become text nodes). */
export function createNode<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  options: NodeOptions = {},
  children: readonly Child[] = [],
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  for (const [name, value] of Object.entries(options.attributes ?? {})) {
    if (value === true) node.setAttribute(name, '');
    else if (typeof value === 'string') node.setAttribute(name, value);
  }
  node.append(...children.filter((child): child is Node | string => Boolean(child)));
  return node;
}

/** The element with this id, checked to be of the expected kind; throws when the page lacks it. */
export function requireById<Kind extends Element>(id: string, kind: new () => Kind): Kind {
  const found = document.getElementById(id);
  if (!(found instanceof kind)) throw new Error(`The demo page has no #${id} of the expected kind.`);
  return found;
}
