/**
 * fast-check arbitraries of hostile request bodies (issue #7), shared by the
 * property tests of the relay's and the sandbox's parsers: random JSON, valid
 * bodies with one part broken (a wrong type, a missing or extra field, a
 * duplicate key), prototype-pollution keys as own properties (`__proto__`,
 * `constructor`, `prototype`), unicode with lone surrogates, huge strings,
 * deep nesting, broken JSON and bytes that are not UTF-8. Bodies are built as
 * text, since `JSON.stringify` cannot write an own `__proto__` key or a
 * duplicate one. Not a test file.
 */
import fc from 'fast-check';

/**
 * A JSON value whose objects are lists of entries: keys may repeat and may be
 * `__proto__`. `raw` is ready-made JSON text (deep nesting, built flat).
 */
export type JsonTree =
  | null
  | boolean
  | number
  | string
  | JsonTree[]
  | { entries: [string, JsonTree][] }
  | { raw: string };

/** A request body: JSON-ish text, or raw bytes. */
export type HostileBody =
  | { kind: 'text'; text: string; how: string }
  | { kind: 'bytes'; bytes: Uint8Array; how: string };

/** Keys that pollute a prototype when code merges objects carelessly. */
export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** The property a polluted prototype would show; tests check `({}).polluted` stays undefined. */
export const POLLUTION_MARKER = 'polluted';

const hostileKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...POLLUTION_KEYS) },
  fc.constantFrom('toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'then', ''),
  fc.string({ maxLength: 8 }),
);

const trickyText = fc.constantFrom(
  '\ud800',
  '\udfff',
  '\udc00\ud800',
  'a\ud83d',
  '\u0000',
  '\u202e',
  '\ufeff',
  '\u2028',
  '🇬🇭',
  'Ɔkyeame',
  'é',
  '\\',
  '"',
  '\n',
  ' ',
);

/** Strings with unicode at its worst: lone surrogates, NUL, bidi overrides, emoji flags. */
export const unicodeString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 16 }),
  fc
    .array(fc.oneof(trickyText, fc.string({ maxLength: 3 })), { maxLength: 12 })
    .map((parts) => parts.join('')),
);

/** Strings from 1,000 to 80,000 characters, over the relay's 16 KiB and the sandbox's 64 KiB at the top. */
export const hugeString = fc
  .tuple(fc.integer({ min: 1000, max: 80_000 }), fc.constantFrom('a', '0', 'é', '\ud800', '🇬🇭'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

const leaf: fc.Arbitrary<JsonTree> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  unicodeString,
  fc.constantFrom(0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2),
);

/** Any JSON value, its objects with hostile keys among ordinary ones. */
export const jsonTree: fc.Arbitrary<JsonTree> = fc.letrec<{ value: JsonTree }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries) => ({ entries })),
  ),
})).value;

/** An own `__proto__` (or `constructor.prototype`) that would add {@link POLLUTION_MARKER} to every object. */
export const pollutionPayload: fc.Arbitrary<JsonTree> = fc.constantFrom<JsonTree>(
  { entries: [[POLLUTION_MARKER, true]] },
  { entries: [['prototype', { entries: [[POLLUTION_MARKER, 'yes']] }]] },
  { entries: [['__proto__', { entries: [[POLLUTION_MARKER, 1]] }]] },
);

/** The text of a tree (JSON.stringify escapes lone surrogates, so the text is valid UTF-16). */
export function treeText(tree: JsonTree): string {
  if (tree === null || typeof tree !== 'object') return JSON.stringify(tree) ?? 'null';
  if (Array.isArray(tree)) return `[${tree.map(treeText).join(',')}]`;
  if ('raw' in tree) return tree.raw;
  return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${treeText(value)}`).join(',')}}`;
}

/** A plain value as a tree. */
export function toTree(value: unknown): JsonTree {
  if (value === null || typeof value !== 'object') return value as JsonTree;
  if (Array.isArray(value)) return value.map(toTree);
  return { entries: Object.entries(value).map(([key, child]) => [key, toTree(child)]) };
}

/** Every path (of entry keys and array indexes) to a node of the tree, the root first. */
function pathsOf(tree: JsonTree, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  const children = Array.isArray(tree)
    ? tree
    : tree !== null && typeof tree === 'object' && 'entries' in tree
      ? tree.entries.map(([, child]) => child)
      : [];
  children.forEach((child, index) => {
    paths.push(...pathsOf(child, [...prefix, index]));
  });
  return paths;
}

/** The tree with the node at `path` replaced by what `change` makes of it (`undefined` removes it). */
function changeAt(
  tree: JsonTree,
  path: (string | number)[],
  change: (node: JsonTree) => JsonTree | undefined,
): JsonTree | undefined {
  const [step, ...rest] = path;
  if (step === undefined) return change(tree);
  if (Array.isArray(tree)) {
    return tree.flatMap((child, index) => {
      if (index !== step) return [child];
      const changed = changeAt(child, rest, change);
      return changed === undefined ? [] : [changed];
    });
  }
  if (tree !== null && typeof tree === 'object' && 'entries' in tree) {
    return {
      entries: tree.entries.flatMap(([key, child], index): [string, JsonTree][] => {
        if (index !== step) return [[key, child]];
        const changed = changeAt(child, rest, change);
        return changed === undefined ? [] : [[key, changed]];
      }),
    };
  }
  return tree;
}

/** One thing done to a node of a valid body. */
type Mutation =
  | { kind: 'replace'; value: JsonTree }
  | { kind: 'remove' }
  | { kind: 'add-key'; key: string; value: JsonTree }
  | { kind: 'repeat-key'; value: JsonTree }
  | { kind: 'huge-string'; value: string }
  | { kind: 'nest'; depth: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), value: jsonTree }),
  fc.record({ kind: fc.constant('remove' as const) }),
  fc.record({
    kind: fc.constant('add-key' as const),
    key: hostileKey,
    value: fc.oneof(jsonTree, pollutionPayload),
  }),
  fc.record({ kind: fc.constant('repeat-key' as const), value: jsonTree }),
  fc.record({ kind: fc.constant('huge-string' as const), value: hugeString }),
  fc.record({ kind: fc.constant('nest' as const), depth: fc.integer({ min: 2, max: 3000 }) }),
);

/** `inner` inside `depth` levels of arrays and objects, as flat text: no recursion to build or write it. */
function nested(depth: number, inner: JsonTree): JsonTree {
  const opening = '[{"a":'.repeat(Math.floor(depth / 2)) + (depth % 2 === 1 ? '[' : '');
  const closing = (depth % 2 === 1 ? ']' : '') + '}]'.repeat(Math.floor(depth / 2));
  return { raw: `${opening}${treeText(inner)}${closing}` };
}

function mutate(tree: JsonTree, path: (string | number)[], step: Mutation): JsonTree | undefined {
  return changeAt(tree, path, (node) => {
    switch (step.kind) {
      case 'replace':
        return step.value;
      case 'remove':
        return undefined;
      case 'huge-string':
        return step.value;
      case 'nest':
        return nested(step.depth, node);
      case 'add-key':
        return node !== null && typeof node === 'object' && !Array.isArray(node) && 'entries' in node
          ? { entries: [...node.entries, [step.key, step.value]] }
          : { entries: [[step.key, step.value]] };
      case 'repeat-key': {
        // JSON.parse keeps the last of two equal keys: a validator and a later reader may disagree.
        if (node === null || typeof node !== 'object' || Array.isArray(node) || !('entries' in node)) {
          return step.value;
        }
        const first = node.entries[0];
        return first ? { entries: [...node.entries, [first[0], step.value]] } : node;
      }
    }
  });
}

/** `valid` with one to three random mutations at random places, or `valid` itself now and then. */
export function mutatedBody(valid: unknown): fc.Arbitrary<HostileBody> {
  const tree = toTree(valid);
  const paths = pathsOf(tree);
  return fc
    .array(fc.tuple(fc.nat({ max: paths.length - 1 }), mutation), { minLength: 0, maxLength: 3 })
    .map((steps) => {
      let mutated: JsonTree | undefined = tree;
      for (const [pathIndex, step] of steps) {
        // Later paths may no longer exist after a removal: changeAt then leaves the tree as it is.
        if (mutated === undefined) break;
        mutated = mutate(mutated, paths[pathIndex] ?? [], step);
      }
      return {
        kind: 'text' as const,
        text: mutated === undefined ? '' : treeText(mutated),
        how:
          steps.map(([index, step]) => `${step.kind}@${(paths[index] ?? []).join('.')}`).join(' ') || 'valid',
      };
    });
}

/** Bodies that are not a valid request of any kind: random JSON, broken JSON, deep nesting, bad bytes. */
export const hostileBody: fc.Arbitrary<HostileBody> = fc.oneof(
  jsonTree.map((tree) => ({ kind: 'text' as const, text: treeText(tree), how: 'random JSON' })),
  fc.tuple(pollutionPayload, jsonTree).map(([payload, tree]) => ({
    kind: 'text' as const,
    text: treeText({
      entries: [
        ['__proto__', payload],
        ['constructor', { entries: [['prototype', payload]] }],
        ['x', tree],
      ],
    }),
    how: 'prototype pollution',
  })),
  fc.string({ maxLength: 40 }).map((text) => ({ kind: 'text' as const, text, how: 'random text' })),
  fc.tuple(fc.integer({ min: 1, max: 40_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => ({
    kind: 'text' as const,
    text: `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`,
    how: `nested ${depth} deep`,
  })),
  fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => ({
    kind: 'text' as const,
    text: `{"line_items":${open.repeat(depth)}${(open === '[' ? ']' : '}').repeat(depth)}}`,
    how: `an object nesting ${depth} deep`,
  })),
  fc
    .constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '"x"',
      '{',
      '{"a":1',
      '{"a":}',
      '1e999999',
      '{"a":1}{"b":2}',
      '\ufeff{}',
    )
    .map((text) => ({ kind: 'text' as const, text, how: 'broken or bare JSON' })),
  fc
    .uint8Array({ minLength: 1, maxLength: 64 })
    .map((bytes) => ({ kind: 'bytes' as const, bytes, how: 'random bytes' })),
  fc
    .constantFrom(
      Uint8Array.of(0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d),
      Uint8Array.of(0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d),
      Uint8Array.of(0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00),
    )
    .map((bytes) => ({ kind: 'bytes' as const, bytes, how: 'not UTF-8' })),
);

/** The bytes a body goes out as. */
export function bodyBytes(body: HostileBody): Uint8Array {
  return body.kind === 'bytes' ? body.bytes : new TextEncoder().encode(body.text);
}

/**
 * What a server decoding the bytes as UTF-8 then `JSON.parse` gets: the
 * value, or `undefined` for bytes that are not UTF-8 or text that is not JSON.
 */
export function parsedAsServerSees(body: HostileBody): { ok: true; value: unknown } | { ok: false } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bodyBytes(body));
    if (text.trim() === '') return { ok: false };
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** `Content-Type` values: JSON ones and others a client might send. */
export const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
    '',
  ),
);

/**
 * The own property names of the built-in prototypes, to compare before and
 * after: a pollution adds one.
 */
export function prototypeSnapshot(): string[] {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((prototype) =>
    Object.getOwnPropertyNames(prototype).sort().join(','),
  );
}

/** How deep objects and arrays nest in a parsed value (a scalar is 0); iterative, for any depth. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.node === null || typeof next.node !== 'object') continue;
    deepest = Math.max(deepest, next.depth);
    for (const child of Object.values(next.node)) pending.push({ node: child, depth: next.depth + 1 });
  }
  return deepest;
}
