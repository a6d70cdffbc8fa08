/**
 * Test helper: starts Debian's headless Chromium (found by
 * `scripts/test_setup.ts`) with the flags this closed network needs and a
 * fresh profile, and drives it over the DevTools protocol's websocket. No
 * browser download, no npm dependency.
 *
 * @module
 */

import { findChromium } from "../scripts/test_setup.ts";
import { readUntil } from "../testing/wait.ts";

/** Chromium's flags for a headless run without network access beyond loopback. */
export const CLOSED_NETWORK_FLAGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** A running headless Chromium. */
export interface Chromium {
  /** Opens `url` in a new tab and evaluates `expression` there (awaiting a promise). */
  evaluateIn(url: string, expression: string, timeoutMs?: number): Promise<unknown>;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Starts Chromium. Fails with the command to run when it is missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startChromium } from "./_chromium.ts";
 *
 * const browser = await startChromium();
 * assert.equal(await browser.evaluateIn("about:blank", "1 + 1"), 2);
 * await browser.close();
 * ```
 */
export async function startChromium(): Promise<Chromium> {
  const path = await findChromium();
  if (!path) {
    throw new Error(
      "Chromium is missing: run `deno run -A scripts/test_setup.ts` " +
        "(or `apt-get install -y chromium`) before the tests",
    );
  }
  const profile = await Deno.makeTempDir({ prefix: "memo-chromium-" });
  const child = new Deno.Command(path, {
    args: [
      "--headless",
      ...CLOSED_NETWORK_FLAGS,
      `--user-data-dir=${profile}`,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const wsUrl = await readDevToolsUrl(child.stderr);
  const cdp = await connect(wsUrl);

  return {
    async evaluateIn(url: string, expression: string, timeoutMs = 30_000) {
      const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
      try {
        await cdp.send("Page.enable", {}, sessionId);
        const loaded = cdp.waitFor("Page.loadEventFired", sessionId, timeoutMs);
        await cdp.send("Page.navigate", { url }, sessionId);
        await loaded;
        const result = await cdp.send("Runtime.evaluate", {
          expression,
          awaitPromise: true,
          returnByValue: true,
          timeout: timeoutMs,
        }, sessionId);
        if (result.exceptionDetails) {
          throw new Error(`page threw: ${JSON.stringify(result.exceptionDetails)}`);
        }
        return result.result?.value;
      } finally {
        await cdp.send("Target.closeTarget", { targetId }).catch(() => {});
      }
    },
    async close() {
      await cdp.send("Browser.close", {}).catch(() => {});
      cdp.close();
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }, 5000);
      await child.status;
      clearTimeout(timer);
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

async function readDevToolsUrl(stderr: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  const devTools = /DevTools listening on (ws:\/\/\S+)\s/;
  // The deadline cancels the pending read, so a Chromium that goes silent cannot hang the test.
  const { text, done } = await readUntil(
    reader,
    (t) => devTools.test(t),
    "Chromium's DevTools line",
  )
    .catch((e) => ({ text: (e as Error).message, done: true }));
  const match = text.match(devTools);
  if (done || !match) {
    throw new Error(`Chromium did not start; it printed:\n${text.slice(-2000)}`);
  }
  // Keep draining stderr so Chromium never blocks on a full pipe.
  (async () => {
    try {
      while (!(await reader.read()).done) { /* discard */ }
    } catch { /* closed */ }
  })();
  return match[1];
}

interface Cdp {
  // deno-lint-ignore no-explicit-any
  send(method: string, params: Record<string, unknown>, sessionId?: string): Promise<any>;
  waitFor(event: string, sessionId: string, timeoutMs: number): Promise<unknown>;
  close(): void;
}

async function connect(url: string): Promise<Cdp> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`Cannot connect to Chromium at ${url}`));
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const waiters: { event: string; sessionId: string; resolve(v: unknown): void }[] = [];
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data as string);
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(`${msg.error.message} (${msg.error.code})`));
      else p?.resolve(msg.result);
      return;
    }
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w.event === msg.method && w.sessionId === msg.sessionId) {
        waiters.splice(i, 1);
        w.resolve(msg.params);
      }
    }
  };
  ws.onclose = () => {
    for (const p of pending.values()) {
      p.reject(new Error("Chromium closed the DevTools connection"));
    }
    pending.clear();
  };
  return {
    send(method, params, sessionId) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      });
    },
    waitFor(event, sessionId, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${event} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          event,
          sessionId,
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
        });
      });
    },
    close() {
      ws.close();
    },
  };
}
