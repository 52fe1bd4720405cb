/**
 * What polling needs to know about the page: whether the shopper can see it
 * and whether the device is online. The browser's version reads `document`
 * and `navigator`; tests hand the session their own.
 */

/** Visibility and connectivity, and a way to hear when either changes. */
export interface PageSignals {
  /** True while the page is hidden (another tab, the phone's lock screen). */
  hidden(): boolean;
  /** False while the device says it is offline. */
  online(): boolean;
  /** Calls `listener` on every change of either; returns what stops listening. */
  watch(listener: () => void): () => void;
}

/** The page this script runs in. */
export const browserPage: PageSignals = {
  hidden: () => document.visibilityState === 'hidden',
  online: () => navigator.onLine !== false,
  watch(listener) {
    const targets = [
      [document, 'visibilitychange'],
      [window, 'online'],
      [window, 'offline'],
    ] as const;
    for (const [target, type] of targets) target.addEventListener(type, listener);
    return () => {
      for (const [target, type] of targets) target.removeEventListener(type, listener);
    };
  },
};
