/** Types of scripts/webkit.mjs, for the TypeScript tests that drive WebKit. */

/** What the tests ask WebKitWebDriver for: its MiniBrowser, the only browser it drives. */
export declare const WEBKIT_CAPABILITIES: { browserName: string };

/** The paths of WebKitWebDriver and Xvfb; throws with what to run when either is missing. */
export declare function findWebKit(): { driver: string; xvfb: string };

/** A running WebKitWebDriver on its own virtual screen. */
export interface RunningWebKitDriver {
  /** `http://127.0.0.1:PORT`, the driver's W3C WebDriver endpoint. */
  url: string;
  hostname: string;
  port: number;
  /** Ends the driver, every browser it opened and the screen. */
  stop(): Promise<void>;
}

/** Starts a virtual screen and WebKitWebDriver on it. */
export declare function startWebKitDriver(): Promise<RunningWebKitDriver>;
