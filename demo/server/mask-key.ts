/** A key as it may be printed: its kind and last four characters, `sk_test_…ndbox` style. */
export function maskKey(key: string): string {
  const kind = /^(?:sk|pk)_(?:test|live)_/.exec(key)?.[0] ?? '';
  return key.length - kind.length >= 6 ? `${kind}…${key.slice(-4)}` : `${kind}…`;
}
