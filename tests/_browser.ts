/**
 * Test helper: launches Debian's headless Chromium (found by
 * `scripts/test_setup.ts`) through `playwright-core`, with the flags this
 * closed network needs (the same as `tests/_chromium.ts`). No browser
 * download: playwright-core only drives the system's Chromium.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- test-only, pinned
import { type Browser, chromium } from "npm:playwright-core@1.65.1";
import { findChromium } from "../scripts/test_setup.ts";
import { CLOSED_NETWORK_FLAGS } from "./_chromium.ts";

export type {
  Browser,
  BrowserContext,
  ConsoleMessage,
  Page,
  Request,
} from "npm:playwright-core@1.65.1";

export { CLOSED_NETWORK_FLAGS };

/**
 * Launches headless Chromium with {@linkcode CLOSED_NETWORK_FLAGS}. Fails
 * with the command to run when Chromium is missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { launchBrowser } from "./_browser.ts";
 *
 * const browser = await launchBrowser();
 * try {
 *   const page = await browser.newPage();
 *   assert.equal(await page.evaluate(() => 1 + 1), 2);
 * } finally {
 *   await browser.close();
 * }
 * ```
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = await findChromium();
  if (!executablePath) {
    throw new Error(
      "Chromium is missing: run `deno run -A scripts/test_setup.ts` " +
        "(or `apt-get install -y chromium`) before the tests",
    );
  }
  return await chromium.launch({
    executablePath,
    headless: true,
    args: [...CLOSED_NETWORK_FLAGS],
  });
}
