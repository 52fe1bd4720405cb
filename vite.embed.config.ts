/**
 * Builds the one-file embed: `dist/pay-checkout.embed.js`, the element with
 * Lit bundled, for a single `<script>` tag. The unbundled ES
 * modules for npm come from `tsc -p tsconfig.build.json`.
 */
import { defineConfig, type Plugin } from 'vite';
import { minifyStylesModule } from './scripts/minify-css.mjs';
import { strippingSourceMap, stripTemplateIndentation } from './scripts/minify-templates.mjs';

/**
 * Minifies the stylesheets of the element's `*.styles.ts` modules, as the
 * build does for the npm modules (scripts/minify-css.mjs). Only a module that
 * ends with its template is touched, so the source map stays exact (`map: null`).
 */
function minifyElementStyles(): Plugin {
  return {
    name: 'pay-checkout:minify-element-styles',
    transform: {
      filter: { id: /\/src\/element\/[^/]+\.styles\.ts$/ },
      handler(code) {
        const minified = minifyStylesModule(code);
        return minified === null ? null : { code: minified, map: null };
      },
    },
  };
}

/**
 * Strips the indentation of the element's `html` templates in its
 * `*.templates.ts` modules, and the line breaks between their tags, as the
 * build does for the npm modules (scripts/minify-templates.mjs); the map
 * says where each line's text now starts.
 */
function minifyElementTemplates(): Plugin {
  return {
    name: 'pay-checkout:minify-element-templates',
    transform: {
      filter: { id: /\/src\/element\/[^/]+\.templates\.ts$/ },
      handler(code, id) {
        const stripped = stripTemplateIndentation(code);
        return {
          code: stripped.code,
          map: { ...strippingSourceMap(stripped.lines), sources: [id] },
        };
      },
    },
  };
}

/**
 * Drops what of Lit this bundle can never use: the global hooks of
 * `@lit/polyfill-support`, for browsers without native Shadow DOM (none of
 * them runs an ES2022 bundle); the version registries that Lit's development
 * build reads to warn of two copies of Lit on a page (the embed always
 * brings its own); and the message of the error a `CSSResult` built without
 * Lit's private token throws (only Lit builds one here, with the token).
 * Each is replaced by `void 0` padded to its length, so no code moves and
 * the source map stays exact (`map: null`). 154 B gzip in all.
 */
function dropUnusedLitParts(): Plugin {
  const unused = [
    /\b\w+\.(?:reactiveElement|litHtml|litElement)PolyfillSupport\b/g,
    /\(\w+\.(?:reactiveElement|litHtml|litElement)Versions\s*\?\?=\s*\[\]\)\.push\([^)]*\)/g,
    /"CSSResult is not constructable[^"]*"/g,
  ];
  return {
    name: 'pay-checkout:drop-unused-lit-parts',
    transform: {
      filter: { id: /\/node_modules\/(?:lit-html|lit-element|@lit\/reactive-element)\/[^/]+\.js$/ },
      handler(code) {
        const dropped = unused.reduce(
          (text, part) => text.replace(part, (found) => 'void 0'.padEnd(found.length)),
          code,
        );
        return dropped === code ? null : { code: dropped, map: null };
      },
    },
  };
}

export default defineConfig({
  plugins: [minifyElementStyles(), minifyElementTemplates(), dropUnusedLitParts()],
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
