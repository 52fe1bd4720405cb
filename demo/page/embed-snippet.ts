/**
 * The copy-paste snippet for the demo's current settings: the embed's script
 * tag with Subresource Integrity, the element's markup, and the theme as CSS
 * for the merchant's stylesheet (a strict CSP blocks inline `<style>`). Built
 * as tokens, rendered as text nodes: never parsed as HTML.
 */
import { createNode } from './dom.js';

/** What the snippet describes. */
export interface SnippetSettings {
  /** The package version the CDN URL pins. */
  version: string;
  /** `sha384-…` of that version's embed bundle; null when it is not built here. */
  integrity: string | null;
  createUrl: string;
  lookupUrl: string;
  priceUrl: string;
  amount: number;
  currency: string;
  locale: string;
  /** What the page sets as the element's `cart`, for the comment that says so. */
  cart: unknown;
}

/** One piece of the snippet and how to colour it. */
export interface SnippetToken {
  text: string;
  kind?: 'tag' | 'attribute' | 'value' | 'comment' | 'property' | 'selector';
}

/** Where the snippet loads the embed from: jsDelivr's copy of the npm package, pinned. */
export function embedScriptUrl(version: string): string {
  return `https://cdn.jsdelivr.net/npm/pay-checkout@${version}/dist/pay-checkout.embed.js`;
}

/** The HTML part: script tag, element, and a comment on the cart. */
export function htmlSnippet(settings: SnippetSettings): SnippetToken[] {
  const tokens: SnippetToken[] = [];
  const attribute = (name: string, value: string, indent: string): void => {
    tokens.push({ text: indent }, { text: name, kind: 'attribute' }, { text: '=' });
    tokens.push({ text: `"${escapeAttribute(value)}"`, kind: 'value' });
  };
  tokens.push({ text: '<script', kind: 'tag' });
  attribute('src', embedScriptUrl(settings.version), '\n  ');
  attribute('integrity', settings.integrity ?? 'sha384-(run npm run build to compute it)', '\n  ');
  attribute('crossorigin', 'anonymous', '\n  ');
  tokens.push({ text: '></script>', kind: 'tag' }, { text: '\n\n' });
  tokens.push({ text: '<pay-checkout', kind: 'tag' });
  attribute('create-url', settings.createUrl, '\n  ');
  attribute('lookup-url', settings.lookupUrl, '\n  ');
  attribute('price-url', settings.priceUrl, '\n  ');
  attribute('amount', String(settings.amount), '\n  ');
  attribute('currency', settings.currency, ' ');
  attribute('locale', settings.locale, ' ');
  tokens.push({ text: '></pay-checkout>', kind: 'tag' }, { text: '\n\n' });
  tokens.push({
    text: `<!-- From your own script (your server prices it):\n     document.querySelector('pay-checkout').cart = ${JSON.stringify(settings.cart)}; -->`,
    kind: 'comment',
  });
  return tokens;
}

/** The CSS part: the theme's custom properties on the element. */
export function cssSnippet(theme: readonly (readonly [property: string, value: string])[]): SnippetToken[] {
  const tokens: SnippetToken[] = [
    { text: '/* In your stylesheet */', kind: 'comment' },
    { text: '\n' },
    { text: 'pay-checkout', kind: 'selector' },
    { text: ' {\n' },
  ];
  for (const [property, value] of theme) {
    tokens.push({ text: '  ' }, { text: property, kind: 'property' }, { text: `: ${value};\n` });
  }
  tokens.push({ text: '}' });
  return tokens;
}

/** The snippet as the text to copy. */
export function snippetText(tokens: readonly SnippetToken[]): string {
  return tokens.map((token) => token.text).join('');
}

/** Shows the tokens in `code`, one span per coloured token. */
export function renderSnippet(code: HTMLElement, tokens: readonly SnippetToken[]): void {
  code.replaceChildren(
    ...tokens.map((token) =>
      token.kind ? createNode('span', { className: `token token--${token.kind}` }, [token.text]) : token.text,
    ),
  );
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
}
