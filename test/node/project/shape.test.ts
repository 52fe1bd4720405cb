/**
 * The shape of src/, held on every run: no function over 80 lines counted
 * whole (first line to last, nested functions inside their parent), the
 * element's LitElement file at most 300 lines, `instanceof Response` only in
 * src/http/ (its web-standard helpers), at most 12 files directly in
 * src/server/ (the entries and the assembly; the rest grouped by concern),
 * and no import cycle in src/ or in test/, type-only imports included (as biome's
 * `noImportCycles` with `ignoreTypes: false` counts them; the check is here
 * too so the figures show with the tests).
 *
 * The folder rules of src/server/ are held too: handlers/ never imports
 * fulfilment/, lookups/ never imports handlers/ or fulfilment/, no folder
 * imports one above it (or the files at the top, the entries and the
 * assembly), and among src/server/ files only the package's entries import
 * src/http/node/ (the Node side of the HTTP layer); one place,
 * src/http/answer-errors.ts, turns a throw into an answer.
 *
 * Functions and imports are read from a real syntax tree: rolldown's
 * `parseAst` (the oxc parser), which comes with vite. The TypeScript package
 * at the top of node_modules (7.x) has no JavaScript API to parse with.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAst } from 'rolldown/parseAst';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = join(ROOT, 'src');

const MAX_FUNCTION_LINES = 80;
const MAX_ELEMENT_LINES = 300;
const ELEMENT_FILE = 'src/element/pay-checkout.component.ts';
const MAX_SERVER_TOP_FILES = 12;
/** A node of the oxc syntax tree: its type, its span, and its fields. */
interface SyntaxNode {
  type: string;
  start: number;
  end: number;
  [field: string]: unknown;
}

/** A function of src/ and how long it is, whole. */
interface MeasuredFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** One parsed source file: its repository path, its text and its tree. */
interface SourceFile {
  path: string;
  text: string;
  program: SyntaxNode;
}

function sourcePaths(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourcePaths(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function parsed(absolute: string): SourceFile {
  const text = readFileSync(absolute, 'utf8');
  const lang = absolute.endsWith('.d.ts') ? 'dts' : 'ts';
  const program = parseAst(text, { lang }, absolute) as unknown as SyntaxNode;
  return { path: relative(ROOT, absolute).split('\\').join('/'), text, program };
}

const sources: SourceFile[] = sourcePaths(SRC).map(parsed);

function isNode(value: unknown): value is SyntaxNode {
  return typeof value === 'object' && value !== null && typeof (value as SyntaxNode).type === 'string';
}

/** Calls `visit` on every node under `node`, with its parent. */
function walk(node: SyntaxNode, visit: (node: SyntaxNode, parent: SyntaxNode | undefined) => void): void {
  const stack: [SyntaxNode, SyntaxNode | undefined][] = [[node, undefined]];
  while (stack.length > 0) {
    const [current, parent] = stack.pop() as [SyntaxNode, SyntaxNode | undefined];
    visit(current, parent);
    for (const value of Object.values(current)) {
      for (const child of Array.isArray(value) ? value : [value]) {
        if (isNode(child)) stack.push([child, current]);
      }
    }
  }
}

/** The 1-based line of each offset of `text`. */
function lineFinder(text: string): (offset: number) => number {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    starts.push(index + 1);
  }
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}

function keyName(key: unknown): string | undefined {
  if (!isNode(key)) return undefined;
  if (typeof key.name === 'string') return key.name;
  if (typeof key.value === 'string') return key.value;
  return undefined;
}

/** A function's name, and the node whose first line is the function's (a method's name, not its `(`). */
function nameAndHead(fn: SyntaxNode, parent: SyntaxNode | undefined): { name: string; head: SyntaxNode } {
  const own = keyName(fn.id);
  if (own) return { name: own, head: fn };
  if (parent && ['MethodDefinition', 'Property', 'PropertyDefinition'].includes(parent.type)) {
    return { name: keyName(parent.key) ?? '(computed)', head: parent.key as SyntaxNode };
  }
  if (parent?.type === 'VariableDeclarator') return { name: keyName(parent.id) ?? '(pattern)', head: fn };
  if (parent?.type === 'AssignmentExpression' && isNode(parent.left)) {
    const left = parent.left;
    return { name: keyName(left.property) ?? keyName(left) ?? '(assigned)', head: fn };
  }
  return { name: '(anonymous)', head: fn };
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Every function with a body in `.ts` files of src/ (declaration files hold none), measured whole. */
function measureFunctions(): MeasuredFunction[] {
  const measured: MeasuredFunction[] = [];
  for (const source of sources) {
    if (source.path.endsWith('.d.ts')) continue;
    const lineOf = lineFinder(source.text);
    walk(source.program, (node, parent) => {
      if (!FUNCTION_TYPES.has(node.type) || !node.body) return;
      const { name, head } = nameAndHead(node, parent);
      const line = lineOf(head.start);
      measured.push({ file: source.path, name, line, lines: lineOf(node.end - 1) - line + 1 });
    });
  }
  return measured.sort((a, b) => b.lines - a.lines);
}

const describeFunction = (fn: MeasuredFunction) => `${fn.name} (${fn.file}:${fn.line}) ${fn.lines} lines`;

/** The file a relative import names: `./x.js` is `./x.ts` (or a declaration file, or a folder's index). */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(join(ROOT, from)), specifier).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.d.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && candidate.endsWith('.ts'))
      return relative(ROOT, candidate).split('\\').join('/');
  }
  return undefined;
}

/** Each of `files` and the files it imports, type-only imports and re-exports included. */
function importGraph(files: readonly SourceFile[] = sources): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const source of files) {
    const targets = new Set<string>();
    walk(source.program, (node) => {
      const isImport = ['ImportDeclaration', 'ExportAllDeclaration', 'ExportNamedDeclaration'].includes(
        node.type,
      );
      const specifier =
        isImport || node.type === 'ImportExpression' ? (node.source as SyntaxNode | null) : null;
      if (typeof specifier?.value !== 'string') return;
      const target = resolveImport(source.path, specifier.value);
      if (target) targets.add(target);
    });
    graph.set(source.path, targets);
  }
  return graph;
}

/** Every import cycle, each as the files around it, found as strongly connected components (Tarjan). */
function importCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const connect = (file: string): void => {
    index.set(file, counter);
    lowest.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, index.get(target) as number));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return cycles;
}

describe('the shape of src/', () => {
  const functions = measureFunctions();

  it(`has no function over ${MAX_FUNCTION_LINES} lines, counted whole`, (t) => {
    t.diagnostic(
      `${functions.length} functions; the longest: ${functions.slice(0, 6).map(describeFunction).join('; ')}`,
    );
    const over = functions.filter((fn) => fn.lines > MAX_FUNCTION_LINES);
    assert.deepEqual(over.map(describeFunction), []);
  });

  it(`keeps the LitElement file (${ELEMENT_FILE}) within ${MAX_ELEMENT_LINES} lines`, (t) => {
    const source = sources.find((file) => file.path === ELEMENT_FILE);
    assert.ok(source, `${ELEMENT_FILE} exists`);
    const lines = source.text.replace(/\n$/, '').split('\n').length;
    t.diagnostic(`${ELEMENT_FILE}: ${lines} lines`);
    assert.ok(lines <= MAX_ELEMENT_LINES, `${ELEMENT_FILE} has ${lines} lines`);
  });

  it('uses instanceof Response only in src/http/', () => {
    const outside: string[] = [];
    for (const source of sources) {
      if (source.path.startsWith('src/http/')) continue;
      const lineOf = lineFinder(source.text);
      walk(source.program, (node) => {
        if (node.type !== 'BinaryExpression' || node.operator !== 'instanceof') return;
        const right = node.right as SyntaxNode;
        const named = right.type === 'MemberExpression' ? (right.property as SyntaxNode) : right;
        if (named.name === 'Response') outside.push(`${source.path}:${lineOf(node.start)}`);
      });
    }
    assert.deepEqual(outside, []);
  });

  it(`keeps at most ${MAX_SERVER_TOP_FILES} files directly in src/server/`, (t) => {
    const top = readdirSync(join(SRC, 'server'), { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => entry.name);
    t.diagnostic(`${top.length} files: ${top.join(', ')}`);
    assert.ok(top.length <= MAX_SERVER_TOP_FILES, `${top.length} files: ${top.join(', ')}`);
  });

  it('has no import cycle, type-only imports included', (t) => {
    const graph = importGraph();
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.size, 0);
    t.diagnostic(`${graph.size} files, ${edges} imports between them`);
    assert.deepEqual(importCycles(graph), []);
  });
});

describe('the shape of test/', () => {
  it('has no import cycle among the tests and their fixtures, type-only imports included', (t) => {
    const graph = importGraph(sourcePaths(join(ROOT, 'test')).map(parsed));
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.size, 0);
    t.diagnostic(`${graph.size} files, ${edges} imports between them`);
    assert.deepEqual(importCycles(graph), []);
  });

  it('groups the Node tests by concern: none left loose at the top of test/node/', () => {
    const loose = readdirSync(join(ROOT, 'test', 'node')).filter((name) => name.endsWith('.ts'));
    assert.deepEqual(loose, []);
  });
});

/**
 * The folders of src/server/ from the top down: a folder imports only folders
 * on a lower line, never one beside it or above it. handlers/ and fulfilment/
 * use the rest; lookups/ is shared by both; orders/ is what the service said
 * about an order; checkouts/ the checkouts the merchant's server created;
 * journal/ keeps them.
 */
const SERVER_FOLDER_LEVELS: readonly (readonly string[])[] = [
  ['merchant-api'],
  ['handlers', 'fulfilment'],
  ['lookups'],
  ['orders', 'limits', 'checkouts'],
  ['events'],
  ['journal'],
  ['pricing', 'service-client'],
  ['tokens'],
];

/** The package's entries in src/server/: only they import src/http/node/. */
const SERVER_ENTRIES = ['src/server/index.ts', 'src/server/node.ts', 'src/server/web.ts'];

/** The folder of src/server/ a file is in (`handlers`), `''` for a file at its top, `undefined` outside it. */
function serverFolderOf(file: string): string | undefined {
  if (!file.startsWith('src/server/')) return undefined;
  const rest = file.slice('src/server/'.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? '' : rest.slice(0, slash);
}

/** Every import of src/server/ that breaks a folder rule, as `from → to (the rule)`. */
function folderRuleBreaks(graph: Map<string, Set<string>>): string[] {
  const levelOf = new Map<string, number>();
  SERVER_FOLDER_LEVELS.forEach((folders, level) => {
    for (const folder of folders) levelOf.set(folder, level);
  });
  const breaks: string[] = [];
  for (const [from, targets] of graph) {
    const fromFolder = serverFolderOf(from);
    if (fromFolder === undefined) continue;
    for (const to of targets) {
      const broken = folderRuleBroken(from, fromFolder, to, levelOf);
      if (broken) breaks.push(`${from} → ${to} (${broken})`);
    }
  }
  return breaks.sort();
}

/** The rule the import `from` → `to` breaks, or `undefined`. */
function folderRuleBroken(
  from: string,
  fromFolder: string,
  to: string,
  levelOf: ReadonlyMap<string, number>,
): string | undefined {
  if (to.startsWith('src/http/node/') && !SERVER_ENTRIES.includes(from)) {
    return 'only the entries import src/http/node/';
  }
  const toFolder = serverFolderOf(to);
  // Files at the top (the entries and the assembly) import any folder; imports inside a folder are its own.
  if (toFolder === undefined || fromFolder === '' || toFolder === fromFolder) return undefined;
  if (fromFolder === 'handlers' && toFolder === 'fulfilment') return 'handlers/ never imports fulfilment/';
  if (fromFolder === 'lookups' && (toFolder === 'handlers' || toFolder === 'fulfilment')) {
    return 'lookups/ never imports handlers/ or fulfilment/';
  }
  if (toFolder === '') return 'no folder imports the files at the top of src/server/';
  const fromLevel = levelOf.get(fromFolder);
  const toLevel = levelOf.get(toFolder);
  if (fromLevel === undefined) return `${fromFolder}/ has no place in SERVER_FOLDER_LEVELS`;
  if (toLevel === undefined) return `${toFolder}/ has no place in SERVER_FOLDER_LEVELS`;
  return toLevel <= fromLevel ? `${toFolder}/ is not below ${fromFolder}/` : undefined;
}

describe('folder rules', () => {
  const graph = importGraph();

  it('names every folder of src/server/ in its order from the top down', () => {
    const folders = readdirSync(join(SRC, 'server'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(folders, SERVER_FOLDER_LEVELS.flat().sort());
  });

  it('hold in src/server/: no folder imports up, and only the entries import src/http/node/', (t) => {
    const breaks = folderRuleBreaks(graph);
    t.diagnostic(
      `${breaks.length} imports break a folder rule${breaks.length ? `: ${breaks.join('; ')}` : ''}`,
    );
    assert.deepEqual(breaks, []);
  });

  it('keep the browser code off the relay and the sandbox, and the sandbox off the relay', (t) => {
    const crossings: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) {
        const browserReachesServer =
          from.startsWith('src/element/') && (to.startsWith('src/server/') || to.startsWith('src/sandbox/'));
        const sandboxReachesRelay = from.startsWith('src/sandbox/') && to.startsWith('src/server/');
        if (browserReachesServer || sandboxReachesRelay) crossings.push(`${from} → ${to}`);
      }
    }
    t.diagnostic(`${crossings.length} imports cross`);
    assert.deepEqual(crossings, []);
  });

  it('turn a throw into an answer in one place: only answer-errors.ts calls an HttpError’s toResponse()', () => {
    const callers: string[] = [];
    for (const source of sources) {
      // The error's own module makes the answer it is asked for (errorResponse).
      if (source.path === 'src/http/http-error.ts') continue;
      const lineOf = lineFinder(source.text);
      walk(source.program, (node) => {
        const callee = node.type === 'CallExpression' ? (node.callee as SyntaxNode) : undefined;
        if (callee?.type !== 'MemberExpression') return;
        if ((callee.property as SyntaxNode).name === 'toResponse') {
          callers.push(`${source.path}:${lineOf(node.start)}`);
        }
      });
    }
    assert.deepEqual(
      callers.map((caller) => caller.replace(/:\d+$/, '')),
      ['src/http/answer-errors.ts'],
      callers.join(', '),
    );
  });
});
