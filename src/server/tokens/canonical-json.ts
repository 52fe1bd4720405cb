/**
 * JSON with object keys sorted at every depth, so that two carts that differ
 * only in key order read as one value (the element compares carts the same
 * way). Values JSON cannot hold are written as JSON.stringify writes them.
 */

/** `value` as JSON text whose object keys are sorted, at every depth. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
