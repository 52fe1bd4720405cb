/**
 * Which texts a checkout speaks (`locale`, else the nearest
 * `lang`, else English). English ships with the element; other locales are
 * registered by the entry point, each in the way that suits it: the npm
 * entry (`src/index.ts`) registers French lazily, an `import()` that becomes
 * a chunk only French pages fetch, and the one-file embed (`src/embed.ts`)
 * registers the French texts themselves, having no other file to load. A
 * page overrides any text through the `strings` property.
 */
import { EN_STRINGS } from './en.js';
import type { BuiltInLocale, PayCheckoutStrings } from './strings.js';

/** The texts of each locale available so far. */
const loaded: Partial<Record<BuiltInLocale, PayCheckoutStrings>> = { en: EN_STRINGS };
/** For each locale registered lazily and not loaded yet: what loads it, once. */
const loaders: Partial<Record<BuiltInLocale, () => Promise<void>>> = {};

/** The built-in locale for a BCP 47 tag: `fr-CI` → `fr`; anything unknown → `en`. */
export function builtInLocale(tag: string | undefined | null): BuiltInLocale {
  const language = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return language === 'fr' ? 'fr' : 'en';
}

/** Makes a locale's texts available at once, as the one-file embed does for French. */
export function registerLocale(locale: BuiltInLocale, texts: PayCheckoutStrings): void {
  loaded[locale] = texts;
}

/**
 * Makes a locale's texts available on first use, as the npm entry does for
 * French: `fetch` runs once, the first time a checkout speaks the locale. If
 * it fails the checkout speaks English rather than not at all.
 */
export function registerLazyLocale(locale: BuiltInLocale, fetch: () => Promise<PayCheckoutStrings>): void {
  let download: Promise<void> | undefined;
  loaders[locale] = () =>
    (download ??= fetch().then(
      (texts) => registerLocale(locale, texts),
      () => undefined,
    ));
}

/** Loads the texts of a tag's locale, once per page; undefined when there is nothing to wait for. Never rejects. */
export function loadStrings(tag: string | undefined | null): Promise<void> | undefined {
  const locale = builtInLocale(tag);
  return loaded[locale] ? undefined : loaders[locale]?.();
}

/** The strings of a locale with the page's overrides on top; English until the locale's own are loaded. */
export function resolveStrings(
  tag: string | undefined | null,
  overrides?: Partial<PayCheckoutStrings> | null,
): PayCheckoutStrings {
  return { ...(loaded[builtInLocale(tag)] ?? EN_STRINGS), ...overrides };
}
