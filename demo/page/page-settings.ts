/**
 * The demo's settings: theme, brand colour and checkout language from the
 * switches, plus the element's timing for demos and tests. They live in the
 * URL (`?theme=dark&brand=indigo&locale=fr&poll-timeout=8000`), so a link or
 * a screenshot script opens the page in the exact state it wants.
 */
import { DEMO_LOCALES, type DemoLocale } from '../demo-config.js';

/** Themes of the demo page and of the element in it. */
export const THEMES = ['light', 'dark'] as const;
/** One of the demo's themes. */
export type Theme = (typeof THEMES)[number];

/** The two brand colours the demo shows the element in. */
export const BRANDS = ['gold', 'indigo'] as const;
/** One of the demo's brand colours. */
export type Brand = (typeof BRANDS)[number];

/** Everything the switches and the URL set. */
export interface PageSettings {
  theme: Theme;
  brand: Brand;
  locale: DemoLocale;
  /** The element's `poll-timeout` (ms), when the URL gives one. */
  pollTimeout: number | undefined;
  /** The element's `poll-interval` (ms), when the URL gives one. */
  pollInterval: number | undefined;
}

const TIMING_PARAMS = ['poll-timeout', 'poll-interval'] as const;

/** Reads the settings from a query string; `prefersDark` picks the theme when the URL does not. */
export function readPageSettings(search: string, prefersDark: boolean): PageSettings {
  const params = new URLSearchParams(search);
  return {
    theme: oneOf(THEMES, params.get('theme')) ?? (prefersDark ? 'dark' : 'light'),
    brand: oneOf(BRANDS, params.get('brand')) ?? 'gold',
    locale: oneOf(DEMO_LOCALES, params.get('locale')) ?? 'en',
    pollTimeout: positiveInteger(params.get(TIMING_PARAMS[0])),
    pollInterval: positiveInteger(params.get(TIMING_PARAMS[1])),
  };
}

/** The query string for `settings`, keeping any other parameter of `search`. */
export function writePageSettings(search: string, settings: PageSettings): string {
  const params = new URLSearchParams(search);
  params.set('theme', settings.theme);
  params.set('brand', settings.brand);
  params.set('locale', settings.locale);
  const query = params.toString();
  return query ? `?${query}` : '';
}

function oneOf<Value extends string>(values: readonly Value[], raw: string | null): Value | undefined {
  return values.find((value) => value === raw);
}

function positiveInteger(raw: string | null): number | undefined {
  if (raw === null || !/^\d{1,9}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value > 0 ? value : undefined;
}
