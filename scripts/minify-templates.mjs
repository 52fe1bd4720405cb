/**
 * Strips the indentation of the element's Lit `html` templates. The
 * templates are written indented to be read (src/element/*.templates.ts); a
 * JavaScript minifier leaves template text alone, so without this every
 * indent would reach each shopper, as the CSS would without
 * scripts/minify-css.mjs. Only spaces and tabs after a line break go: the
 * line break stays, so the markup parses the same (a line break separates
 * attributes as well as a space does, and between elements it is the same
 * whitespace text it was) and every line keeps its number, which lets the
 * source map be corrected exactly. Used by vite.embed.config.ts on the
 * sources and, as a command, on the `*.templates.js` modules tsc writes:
 *
 *   node scripts/minify-templates.mjs dist/element
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The code with the indentation inside its `html` templates removed, and per
 * line (0-based) how many characters left its start.
 */
export function stripTemplateIndentation(code) {
  let out = '';
  const removed = new Map();
  let line = 0;
  /** What encloses the cursor: `{ template: boolean, html: boolean, depth: number }`. */
  const stack = [{ template: false, html: false, depth: 0 }];
  for (let i = 0; i < code.length; ) {
    const frame = stack[stack.length - 1];
    const char = code[i];
    if (frame.template) {
      if (char === '\\') {
        out += code.slice(i, i + 2);
        i += 2;
      } else if (char === '`') {
        stack.pop();
        out += char;
        i++;
      } else if (char === '$' && code[i + 1] === '{') {
        stack.push({ template: false, html: false, depth: 0 });
        out += '${';
        i += 2;
      } else if (char === '\n') {
        out += char;
        i++;
        line++;
        if (frame.html) {
          let end = i;
          while (code[end] === ' ' || code[end] === '\t') end++;
          if (end > i) removed.set(line, end - i);
          i = end;
        }
      } else {
        out += char;
        i++;
      }
      continue;
    }
    const skipped = skipNonTemplate(code, i);
    if (skipped > i) {
      const text = code.slice(i, skipped);
      line += text.split('\n').length - 1;
      out += text;
      i = skipped;
      continue;
    }
    if (char === '`') {
      stack.push({ template: true, html: /\bhtml\s*$/.test(code.slice(Math.max(0, i - 10), i)), depth: 0 });
    } else if (char === '{') {
      frame.depth++;
    } else if (char === '}') {
      if (frame.depth === 0 && stack.length > 1) stack.pop();
      else frame.depth--;
    } else if (char === '\n') {
      line++;
    }
    out += char;
    i++;
  }
  return { code: out, removed };
}

/** The end of a comment or a quoted string starting at `i`, or `i` when none starts there. */
function skipNonTemplate(code, i) {
  const char = code[i];
  if (char === '/' && code[i + 1] === '/') {
    const end = code.indexOf('\n', i);
    return end === -1 ? code.length : end;
  }
  if (char === '/' && code[i + 1] === '*') return code.indexOf('*/', i + 2) + 2;
  if (char !== '"' && char !== "'") return i;
  let end = i + 1;
  while (end < code.length && code[end] !== char) end += code[end] === '\\' ? 2 : 1;
  return end + 1;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeVlq(segment) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    shift += 5;
    if (digit & 32) continue;
    values.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return values;
}

function encodeVlq(values) {
  let text = '';
  for (const number of values) {
    let value = number < 0 ? (-number << 1) | 1 : number << 1;
    do {
      let digit = value & 31;
      value >>>= 5;
      if (value > 0) digit |= 32;
      text += BASE64[digit];
    } while (value > 0);
  }
  return text;
}

/**
 * A source map's `mappings` for code whose lines lost `removed` characters
 * at their start: each generated column moves left by as much (never below 0).
 */
export function shiftMappings(mappings, removed) {
  return mappings
    .split(';')
    .map((lineMappings, line) => {
      const shift = removed.get(line) ?? 0;
      if (!shift || !lineMappings) return lineMappings;
      let column = 0;
      let shifted = 0;
      return lineMappings
        .split(',')
        .map((segment) => {
          const [delta = 0, ...rest] = decodeVlq(segment);
          column += delta;
          const next = Math.max(0, column - shift);
          const encoded = encodeVlq([next - shifted, ...rest]);
          shifted = next;
          return encoded;
        })
        .join(',');
    })
    .join(';');
}

/**
 * A source map (v3) of the stripped code back to the code before it: one
 * segment per line, at its first kept character. For a bundler that chains
 * maps (vite.embed.config.ts).
 */
export function strippingSourceMap(code, removed) {
  const lines = code.split('\n').length;
  const mappings = Array.from({ length: lines }, (_, line) =>
    encodeVlq([
      0,
      0,
      line === 0 ? 0 : 1,
      line === 0 ? 0 : (removed.get(line) ?? 0) - (removed.get(line - 1) ?? 0),
    ]),
  ).join(';');
  return { version: 3, sources: [], names: [], mappings };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2];
  if (!folder) throw new Error('Usage: node scripts/minify-templates.mjs <folder of *.templates.js modules>');
  const modules = readdirSync(folder).filter((name) => name.endsWith('.templates.js'));
  if (modules.length === 0) throw new Error(`No *.templates.js modules in ${folder}.`);
  for (const name of modules) {
    const path = join(folder, name);
    const { code, removed } = stripTemplateIndentation(readFileSync(path, 'utf8'));
    writeFileSync(path, code);
    const mapPath = `${path}.map`;
    if (existsSync(mapPath)) {
      const map = JSON.parse(readFileSync(mapPath, 'utf8'));
      map.mappings = shiftMappings(map.mappings, removed);
      writeFileSync(mapPath, JSON.stringify(map));
    }
  }
}
