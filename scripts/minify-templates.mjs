/**
 * Strips the indentation of the element's Lit `html` templates, and the line
 * breaks that only separate tags. The templates are written indented to be
 * read (src/element/*.templates.ts); a JavaScript minifier leaves template
 * text alone, so without this every indent would reach each shopper, as the
 * CSS would without scripts/minify-css.mjs. Only whitespace the markup does
 * not show goes: spaces and tabs after a line break, and the line break
 * itself between a tag's end and the next tag's start (`>` … `<`) or between
 * a tag and the template's own start or end. A line break anywhere else
 * stays: inside a tag it separates attributes, and next to text or a `${…}`
 * it may be the space between two words. (Whitespace at a template's edge
 * shows nothing because every template of ours renders into a block, grid or
 * flex container.) Each line of the input is mapped to where its text now
 * starts, which lets the source map be corrected exactly. Used by
 * vite.embed.config.ts on the sources and, as a command, on the
 * `*.templates.js` modules tsc writes:
 *
 *   node scripts/minify-templates.mjs dist/element
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The code with that whitespace removed from its `html` templates, and per
 * input line (0-based) where its first kept character now is: `{ line,
 * column }` in the output, and `removed`, how many characters left its start.
 */
export function stripTemplateIndentation(code) {
  let out = '';
  let outLine = 0;
  let lineStart = 0;
  const lines = [{ line: 0, column: 0, removed: 0 }];
  /** What encloses the cursor: `{ template: boolean, html: boolean, depth: number }`. */
  const stack = [{ template: false, html: false, depth: 0 }];
  const newLine = (removed) => {
    lines.push({ line: outLine, column: out.length - lineStart, removed });
  };
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
      } else if (char === '\n' && frame.html) {
        let end = i + 1;
        while (code[end] === ' ' || code[end] === '\t') end++;
        const before = out[out.length - 1];
        const after = code[end];
        if ((before === '>' || before === '`') && (after === '<' || (after === '`' && before === '>'))) {
          // Nothing the markup shows: the next line's text joins this one.
        } else {
          out += char;
          outLine++;
          lineStart = out.length;
        }
        newLine(end - i - 1);
        i = end;
      } else {
        if (char === '\n') {
          out += char;
          outLine++;
          lineStart = out.length;
          newLine(0);
        } else {
          out += char;
        }
        i++;
      }
      continue;
    }
    const skipped = skipNonTemplate(code, i);
    if (skipped > i) {
      for (const piece of code.slice(i, skipped).split(/(?<=\n)/)) {
        out += piece;
        if (piece.endsWith('\n')) {
          outLine++;
          lineStart = out.length;
          newLine(0);
        }
      }
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
    }
    out += char;
    i++;
    if (char === '\n') {
      outLine++;
      lineStart = out.length;
      newLine(0);
    }
  }
  return { code: out, lines };
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

/** Where an input position (0-based line, column) is in the stripped output. */
function moved(lines, line, column) {
  const { line: outLine, column: start, removed } = lines[line] ?? { line, column: 0, removed: 0 };
  return [outLine, start + Math.max(0, column - removed)];
}

/**
 * Mappings (v3) from segments given per output line as `[column, ...rest]`,
 * `rest` already relative as the format wants it.
 */
function encodeMappings(perLine) {
  const out = [];
  for (const [line, segments] of perLine) {
    while (out.length <= line) out.push([]);
    let previous = 0;
    for (const [column, ...rest] of segments) {
      out[line].push(encodeVlq([column - previous, ...rest]));
      previous = column;
    }
  }
  return out.map((segments) => segments.join(',')).join(';');
}

/**
 * A source map's `mappings` for code that `stripTemplateIndentation` changed:
 * each generated position moves to where its text now is. The other fields
 * of each segment are relative to the segment before it, which stays the
 * segment before it, so they are kept as they are.
 */
export function shiftMappings(mappings, lines) {
  const perLine = new Map();
  mappings.split(';').forEach((lineMappings, line) => {
    let column = 0;
    for (const segment of lineMappings ? lineMappings.split(',') : []) {
      const [delta = 0, ...rest] = decodeVlq(segment);
      column += delta;
      const [outLine, outColumn] = moved(lines, line, column);
      if (!perLine.has(outLine)) perLine.set(outLine, []);
      perLine.get(outLine).push([outColumn, ...rest]);
    }
  });
  return encodeMappings(perLine);
}

/**
 * A source map (v3) of the stripped code back to the code before it: one
 * segment per input line, at its first kept character. For a bundler that
 * chains maps (vite.embed.config.ts).
 */
export function strippingSourceMap(lines) {
  const perLine = new Map();
  let previous = { line: 0, removed: 0 };
  lines.forEach((place, line) => {
    if (!perLine.has(place.line)) perLine.set(place.line, []);
    perLine.get(place.line).push([place.column, 0, line - previous.line, place.removed - previous.removed]);
    previous = { line, removed: place.removed };
  });
  return { version: 3, sources: [], names: [], mappings: encodeMappings(perLine) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2];
  if (!folder) throw new Error('Usage: node scripts/minify-templates.mjs <folder of *.templates.js modules>');
  const modules = readdirSync(folder).filter((name) => name.endsWith('.templates.js'));
  if (modules.length === 0) throw new Error(`No *.templates.js modules in ${folder}.`);
  for (const name of modules) {
    const path = join(folder, name);
    const { code, lines } = stripTemplateIndentation(readFileSync(path, 'utf8'));
    writeFileSync(path, code);
    const mapPath = `${path}.map`;
    if (existsSync(mapPath)) {
      const map = JSON.parse(readFileSync(mapPath, 'utf8'));
      map.mappings = shiftMappings(map.mappings, lines);
      writeFileSync(mapPath, JSON.stringify(map));
    }
  }
}
