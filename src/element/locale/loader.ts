/**
 * Which texts a checkout speaks (contract §2: `locale`, else the nearest
 * `lang`, else English). English ships with the element; other locales are
 * registered by the entry point, each in the way that suits it: the npm
 * entry (`src/index.ts`) registers French as a lazy `import()`, a chunk only
 * French pages fetch, and the one-file embed (`src/embed.ts`) registers the
 * French texts themselves, since it has no other file to load. A page
 * overrides any text through the `strings` property.
 */
import { EN_STRINGS } from './en.js';
import type { BuiltInLocale, PayCheckoutStrings } from './strings.js';

/** A locale's texts, or a function that fetches them the first time a checkout needs them. */
export type LocaleTexts = PayCheckoutStrings | (() => Promise<PayCheckoutStrings>);

/** The texts of each locale loaded so far. */
const loaded: Partial<Record<BuiltInLocale, PayCheckoutStrings>> = { en: EN_STRINGS };
/** What fetches each locale not loaded yet, and its one download once started. */
const fetchers: Partial<Record<BuiltInLocale, () => Promise<PayCheckoutStrings>>> = {};
const downloads: Partial<Record<BuiltInLocale, Promise<void>>> = {};

/** The built-in locale for a BCP 47 tag: `fr-CI` → `fr`; anything unknown → `en`. */
export function builtInLocale(tag: string | undefined | null): BuiltInLocale {
  const language = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return language === 'fr' ? 'fr' : 'en';
}

/** Makes a locale's texts available, at once or on first use. An entry point calls it before any checkout renders. */
export function registerLocale(locale: BuiltInLocale, texts: LocaleTexts): void {
  if (typeof texts === 'function') fetchers[locale] = texts;
  else loaded[locale] = texts;
}

/**
 * Loads the texts of a tag's locale, once per page. Undefined when they are
 * already here, or nobody registered them. Never rejects: if the file cannot
 * be fetched the checkout speaks English rather than not at all.
 */
export function loadStrings(tag: string | undefined | null): Promise<void> | undefined {
  const locale = builtInLocale(tag);
  const fetch = fetchers[locale];
  if (loaded[locale] || !fetch) return undefined;
  downloads[locale] ??= fetch().then(
    (texts) => {
      loaded[locale] = texts;
    },
    () => undefined,
  );
  return downloads[locale];
}

/** The strings of a locale with the page's overrides on top; English until the locale's own are loaded. */
export function resolveStrings(
  tag: string | undefined | null,
  overrides?: Partial<PayCheckoutStrings> | null,
): PayCheckoutStrings {
  return { ...(loaded[builtInLocale(tag)] ?? EN_STRINGS), ...overrides };
}
