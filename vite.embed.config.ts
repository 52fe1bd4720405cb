/**
 * Builds the one-file embed: `dist/pay-checkout.embed.js`, the element with
 * Lit bundled, for a single `<script>` tag. The unbundled ES
 * modules for npm come from `tsc -p tsconfig.build.json`.
 */
import { defineConfig, type Plugin } from 'vite';

/** A `css` tagged template without `${…}`: the only kind whose text is all CSS. */
const STATIC_CSS_TEMPLATE = /\bcss`([^`$\\]*)`/g;

/** A quoted string in CSS, whose spaces are its content. */
const QUOTED = /("[^"]*"|'[^']*')/;

/**
 * Minifies the stylesheet text of Lit `css` templates. The JavaScript
 * minifier leaves template text alone, and the embed pays for every byte of
 * it against its gzip budget (scripts/check-size.mjs). Only comments and
 * whitespace that CSS ignores go: spaces after `:` (never before, where they
 * are a descendant combinator: `a :hover`) and around `{ } ; ,`, never
 * inside quotes.
 */
function minifyCss(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split(QUOTED)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part
            .replace(/\s+/g, ' ')
            .replace(/\s*([{};,])\s*/g, '$1')
            .replace(/:\s+/g, ':')
            .replace(/;}/g, '}'),
    )
    .join('')
    .trim();
}

/**
 * Applies `minifyCss` to the element's `*.styles.ts` modules. Shorter text
 * moves whatever follows it, so only a module that ends with its template is
 * touched: then no code moves and the sourcemap stays exact (`map: null`).
 */
function minifyElementStyles(): Plugin {
  return {
    name: 'pay-checkout:minify-element-styles',
    transform: {
      filter: { id: /\/src\/element\/[^/]+\.styles\.ts$/ },
      handler(code) {
        if (!/`;?\s*$/.test(code)) return null;
        const minified = code.replace(STATIC_CSS_TEMPLATE, (_, css: string) => `css\`${minifyCss(css)}\``);
        return { code: minified, map: null };
      },
    },
  };
}

export default defineConfig({
  plugins: [minifyElementStyles()],
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: 'src/embed.ts',
      name: 'PayCheckout',
      formats: ['iife'],
      fileName: () => 'pay-checkout.embed.js',
    },
  },
});
