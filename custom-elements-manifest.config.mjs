/**
 * `cem analyze` (run by `npm run build`) writes `custom-elements.json` from the
 * element's JSDoc (style habit 8): attributes, properties, events, parts and
 * CSS properties, for editors, Storybook and framework wrappers. The plugin
 * below makes it describe the published package rather than our sources.
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';

const EVENTS_SOURCE = 'src/element/events.ts';
const DEFAULTS_SOURCE = 'src/element/defaults.ts';

/**
 * `src/element/x.ts`, `/src/element/x.js` or, from `src/index.ts`,
 * `./element/x.js` (the analyzer writes all three) → `dist/element/x.js`.
 */
function publishedPath(path, fromModule = '') {
  const fromRoot = path.startsWith('.') ? posix.join(posix.dirname(fromModule), path) : path;
  return fromRoot.replace(/^\/?src\/(.+)\.(ts|js)$/, 'dist/$1.js');
}

/**
 * The event types from `HTMLElementEventMap` in events.ts, expanded through
 * their aliases: `pay-paid` → `CustomEvent<PayPaidDetail>`. Read with the
 * analyzer's own TypeScript so the manifest cannot drift from the types.
 */
function eventTypes(ts) {
  const source = ts.createSourceFile(
    EVENTS_SOURCE,
    readFileSync(EVENTS_SOURCE, 'utf8'),
    ts.ScriptTarget.ES2022,
  );
  const aliases = new Map();
  const types = new Map();
  const visit = (node) => {
    if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node.type.getText(source));
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'HTMLElementEventMap') {
      for (const member of node.members) {
        if (member.name && ts.isStringLiteral(member.name) && member.type) {
          types.set(member.name.text, member.type.getText(source));
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return new Map([...types].map(([name, alias]) => [name, aliases.get(alias) ?? alias]));
}

/**
 * The element's defaults by name, as written in defaults.ts: `POLL_INTERVAL_DEFAULT_MS` → `3_000`.
 * The element assigns the names, so the manifest would say `POLL_INTERVAL_DEFAULT_MS`; it says the value.
 */
function elementDefaults(ts) {
  const source = ts.createSourceFile(
    DEFAULTS_SOURCE,
    readFileSync(DEFAULTS_SOURCE, 'utf8'),
    ts.ScriptTarget.ES2022,
  );
  const values = new Map();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (declaration.initializer)
        values.set(declaration.name.getText(source), declaration.initializer.getText(source));
    }
  }
  return values;
}

/** Keeps the public API only, types the events, and points modules at `dist/`. */
function publishedManifestPlugin() {
  let typescript;
  /** Per module path, the names it exports as types only (`export type { … }`): not JavaScript exports. */
  const typeOnlyExports = new Map();
  return {
    name: 'pay-checkout-published-manifest',
    initialize({ ts }) {
      typescript = ts;
    },
    analyzePhase({ ts, node, moduleDoc }) {
      if (!ts.isExportDeclaration(node) || !node.exportClause || !ts.isNamedExports(node.exportClause))
        return;
      const names = typeOnlyExports.get(moduleDoc.path) ?? new Set();
      for (const specifier of node.exportClause.elements) {
        if (node.isTypeOnly || specifier.isTypeOnly) names.add(specifier.name.text);
      }
      typeOnlyExports.set(moduleDoc.path, names);
    },
    packageLinkPhase({ customElementsManifest }) {
      const types = eventTypes(typescript);
      const defaults = elementDefaults(typescript);
      for (const module of customElementsManifest.modules) {
        const typeOnly = typeOnlyExports.get(module.path) ?? new Set();
        module.exports = (module.exports ?? []).filter((entry) => !typeOnly.has(entry.name));
        for (const entry of module.exports) {
          if (entry.declaration?.module) {
            entry.declaration.module = publishedPath(entry.declaration.module, module.path);
          }
        }
        module.path = publishedPath(module.path);
        for (const declaration of module.declarations ?? []) {
          if (!declaration.customElement) continue;
          // Lit's `static properties` lists private reactive state too; only public members are API.
          const hidden = new Set(
            (declaration.members ?? []).filter((member) => member.privacy === 'private').map((m) => m.name),
          );
          declaration.members = (declaration.members ?? []).filter((member) => !hidden.has(member.name));
          declaration.attributes = (declaration.attributes ?? []).filter(
            (attribute) => !hidden.has(attribute.fieldName),
          );
          for (const entry of [...declaration.members, ...declaration.attributes]) {
            if (defaults.has(entry.default)) entry.default = defaults.get(entry.default);
          }
          const documented = new Set((declaration.events ?? []).map((event) => event.name));
          const undocumented = [...types.keys()].filter((name) => !documented.has(name));
          if (undocumented.length > 0) {
            throw new Error(`${declaration.name} fires ${undocumented.join(', ')} without a @fires tag.`);
          }
          for (const event of declaration.events ?? []) {
            const type = types.get(event.name);
            if (!type)
              throw new Error(`@fires ${event.name} is not in HTMLElementEventMap (${EVENTS_SOURCE}).`);
            event.type = { text: type };
          }
        }
      }
    },
  };
}

export default {
  globs: ['src/index.ts', 'src/element/pay-checkout.component.ts', 'src/element/pay-checkout.ts'],
  outdir: '.',
  litelement: true,
  // package.json already names the manifest ("customElements"); the analyzer must not rewrite it.
  packagejson: false,
  plugins: [publishedManifestPlugin()],
};
