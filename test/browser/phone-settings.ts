/**
 * The phone settings the element answers to, checked the same way in every
 * engine: dark mode, reduced motion and a 320 px screen. Only Chromium lets
 * a test change the phone's own settings and screen size from the outside
 * (`emulateMedia` is a Chromium protocol call; WebKitGTK's window will not
 * shrink below 447 px), so:
 *
 * - a setting's rules are taken from the element's own stylesheet and put in
 *   force, as a phone with that setting would apply them; in Chromium the
 *   same check runs once more under the emulated setting itself, so the
 *   media query is checked too;
 * - a 320 px screen is a 320 px frame: a page of its own, the viewport of
 *   which is as wide as the frame.
 */
import { emulateMedia, executeServerCommand } from '@web/test-runner-commands';
import type { PayCheckout } from '../../src/index.js';

/** A phone setting the element has rules for. */
export type PhoneSetting = 'dark' | 'reduced-motion';

const CONDITIONS: Record<PhoneSetting, string> = {
  dark: '(prefers-color-scheme: dark)',
  'reduced-motion': '(prefers-reduced-motion: reduce)',
};

const EMULATED: Record<
  PhoneSetting,
  { on: Parameters<typeof emulateMedia>[0]; off: Parameters<typeof emulateMedia>[0] }
> = {
  dark: { on: { colorScheme: 'dark' }, off: { colorScheme: 'light' } },
  'reduced-motion': { on: { reducedMotion: 'reduce' }, off: { reducedMotion: 'no-preference' } },
};

let engine: Promise<string> | undefined;

/** The engine this run drives (`chromium`, `firefox`, `webkit`), from the test runner's config. */
export function browserEngine(): Promise<string> {
  engine ??= executeServerCommand<string, undefined>('browser-engine').then((name) => String(name));
  return engine;
}

const compact = (text: string) => text.replace(/\s+/g, '').toLowerCase();

/**
 * Adds the rules of the element's `@media <condition>` blocks, without the
 * condition, after its own stylesheet; returns the undo. Throws if the
 * element has no such rules, so a check that relies on them fails if they go.
 */
function forceMediaRules(element: HTMLElement, condition: string): () => void {
  const root = element.shadowRoot;
  if (!root) throw new Error('<pay-checkout> has no shadow root.');
  const own = root.adoptedStyleSheets;
  const inline = [...root.querySelectorAll('style')].flatMap((style) => (style.sheet ? [style.sheet] : []));
  const forced = new CSSStyleSheet();
  for (const sheet of [...own, ...inline]) {
    for (const rule of sheet.cssRules) {
      if (!(rule instanceof CSSMediaRule) || compact(rule.media.mediaText) !== compact(condition)) continue;
      for (const inner of rule.cssRules) forced.insertRule(inner.cssText, forced.cssRules.length);
    }
  }
  if (forced.cssRules.length === 0) throw new Error(`<pay-checkout> has no rules for ${condition}.`);
  root.adoptedStyleSheets = [...own, forced];
  return () => {
    root.adoptedStyleSheets = own;
  };
}

/**
 * Runs `check` as a phone with `setting` shows the element: in every engine
 * with the element's rules for it in force, and in Chromium once more under
 * the emulated setting itself.
 */
export async function withPhoneSetting(
  element: HTMLElement,
  setting: PhoneSetting,
  check: () => unknown,
): Promise<void> {
  const undo = forceMediaRules(element, CONDITIONS[setting]);
  try {
    await check();
  } finally {
    undo();
  }
  if ((await browserEngine()) !== 'chromium') return;
  await emulateMedia(EMULATED[setting].on);
  try {
    await check();
  } finally {
    await emulateMedia(EMULATED[setting].off);
  }
}

/** A phone screen: a frame holding a page with one `<pay-checkout>` and axe. */
export interface PhoneScreen {
  /** The frame's page. */
  document: Document;
  /** Its `<pay-checkout>`, defined and rendered. */
  element: PayCheckout;
  /** What axe finds wrong with the element on this screen. */
  axeViolations(): Promise<unknown[]>;
  /** Removes the frame. */
  close(): void;
}

interface PhoneWindow extends Window {
  axe: { run(context: Element): Promise<{ violations: unknown[] }> };
}

/** Opens test/browser/phone-page.html in a `width` × `height` frame, once its element has rendered. */
export async function openPhoneScreen(width: number, height: number): Promise<PhoneScreen> {
  const frame = document.createElement('iframe');
  frame.style.cssText = `width: ${width}px; height: ${height}px; border: 0; display: block;`;
  frame.title = 'A phone screen';
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.src = new URL('./phone-page.html', import.meta.url).href;
  document.body.append(frame);
  await loaded;
  const page = frame.contentWindow as PhoneWindow | null;
  if (!page) throw new Error('The phone frame has no window.');
  await page.customElements.whenDefined('pay-checkout');
  const element = page.document.querySelector('pay-checkout') as PayCheckout;
  await element.updateComplete;
  return {
    document: page.document,
    element,
    async axeViolations() {
      return (await page.axe.run(element)).violations;
    },
    close() {
      frame.remove();
    },
  };
}
