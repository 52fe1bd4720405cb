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

export default defineConfig({
  plugins: [minifyElementStyles(), minifyElementTemplates()],
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
