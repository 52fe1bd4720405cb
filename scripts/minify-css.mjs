/**
 * Minifies the stylesheet text of the element's `*.styles.ts` modules. A
 * JavaScript minifier leaves template text alone, so without this every
 * space and comment of the stylesheet reaches each shopper: the embed pays
 * for it against its gzip budget, and an app that bundles the npm modules
 * ships it as written. Used by vite.embed.config.ts on the sources and, as a
 * command, on the `*.styles.js` modules tsc writes to `dist/element`:
 *
 *   node scripts/minify-css.mjs dist/element
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A stylesheet: `unsafeCSS(\`…\`)` of a template without `${…}`, whose text is all CSS. */
const STATIC_CSS_TEMPLATE = /\bunsafeCSS\(\s*`([^`$\\]*)`\s*\)/g;

/** A quoted string in CSS, whose spaces are its content. */
const QUOTED = /("[^"]*"|'[^']*')/;

/**
 * Only comments and whitespace that CSS ignores go: spaces after `:` (never
 * before, where they are a descendant combinator: `a :hover`) and around
 * `{ } ; ,`, never inside quotes.
 */
export function minifyCss(text) {
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
            .replace(/;}/g, '}')
            // `0.75rem` is `.75rem`: a leading zero of a number that starts a value or an argument.
            .replace(/([\s:,(])0\.(\d)/g, '$1.$2'),
    )
    .join('')
    .trim();
}

/**
 * A styles module with its stylesheets minified, or null when the module
 * does not end with its stylesheet. Shorter text moves whatever follows it, so
 * only then does no code move and its source map stay exact.
 */
export function minifyStylesModule(code) {
  if (!/`\)?;?\s*(\/\/# sourceMappingURL=\S+\s*)?$/.test(code)) return null;
  return code.replace(STATIC_CSS_TEMPLATE, (_, css) => `unsafeCSS(\`${minifyCss(css)}\`)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2];
  if (!folder) throw new Error('Usage: node scripts/minify-css.mjs <folder of *.styles.js modules>');
  const modules = readdirSync(folder).filter((name) => name.endsWith('.styles.js'));
  if (modules.length === 0) throw new Error(`No *.styles.js modules in ${folder}.`);
  for (const name of modules) {
    const path = join(folder, name);
    const minified = minifyStylesModule(readFileSync(path, 'utf8'));
    if (minified === null)
      throw new Error(`${path} does not end with its stylesheet; its source map would break.`);
    writeFileSync(path, minified);
  }
}
