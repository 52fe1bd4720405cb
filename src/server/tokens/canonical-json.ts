/**
 * JSON with object keys sorted at every depth, so that two carts that differ
 * only in key order read as one value (the element compares carts the same
 * way). Written with a stack of its own rather than by recursion: a cart
 * nested thousands deep (16 KiB of brackets) is text like any other, never a
 * call stack overflow. Values JSON cannot hold are written as JSON.stringify
 * writes them.
 */

/** A piece still to write: a value, or text written as it is. */
type Piece = { value: unknown } | { text: string };

/** `value` as JSON text whose object keys are sorted, at every depth. */
export function canonicalJson(value: unknown): string {
  let out = '';
  const pending: Piece[] = [{ value }];
  for (let piece = pending.pop(); piece !== undefined; piece = pending.pop()) {
    if ('text' in piece) {
      out += piece.text;
      continue;
    }
    const next = piece.value;
    if (Array.isArray(next)) {
      pending.push({ text: ']' });
      for (let index = next.length - 1; index >= 0; index--) {
        pending.push({ value: next[index] ?? null });
        if (index > 0) pending.push({ text: ',' });
      }
      pending.push({ text: '[' });
    } else if (next !== null && typeof next === 'object') {
      const record = next as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      pending.push({ text: '}' });
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        pending.push({ value: record[key] });
        pending.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
      pending.push({ text: '{' });
    } else {
      out += JSON.stringify(next) ?? 'null';
    }
  }
  return out;
}
