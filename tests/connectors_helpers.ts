/**
 * Test helpers of the connector tests: a manual clock, a loopback HTTP
 * server, the faults the fake servers inject, and notes-file helpers.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../connectors/mod.ts";

/** A clock whose time moves only when told; `advance` fires due timers at once. */
export class ManualClock implements Clock {
  #now: number;
  #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 1;

  constructor(start = Date.parse("2024-06-01T00:00:00Z")) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers not yet fired or cleared. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward and runs the timers that fall due. */
  advance(ms: number): void {
    this.#now += ms;
    for (const [id, t] of [...this.#timers]) {
      if (t.at <= this.#now) {
        this.#timers.delete(id);
        t.callback();
      }
    }
  }
}

/** A running loopback server. */
export interface TestServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 at a free port. */
export function serve(handler: (request: Request) => Response | Promise<Response>): TestServer {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    close: async () => {
      await server.shutdown();
    },
  };
}

/** The faults a fake server injects at one request. */
export const FAULTS = [
  "401",
  "403",
  "429",
  "rate-limited",
  "500",
  "html-502",
  "timeout",
  "reset",
  "cursor-repeat",
  "cursor-null",
  "field-error",
] as const;

/** One fault kind. */
export type Fault = typeof FAULTS[number];

/** How a fault is injected. */
export interface FaultOptions {
  /** The `retry-after` header of a rate-limit fault (seconds or an HTTP date). */
  retryAfter?: string;
}

/**
 * Waits until the client gives up on a request (it aborts after its timeout),
 * after calling `onHang` (which advances the test's clock).
 */
export async function hang(request: Request, onHang?: () => void): Promise<Response> {
  if (onHang) {
    // The test's clock fires the client's timeout at once: the client has given up.
    onHang();
    await new Promise((resolve) => setTimeout(resolve, 10));
    return new Response(null, { status: 504 });
  }
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5_000);
    request.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
  return new Response(null, { status: 504 });
}

/**
 * A 200 answer whose connection ends after the first bytes of a body that
 * promised more (`content-length`): the client sees the connection break
 * mid-answer.
 */
export function resetAnswer(): Response {
  const head = new TextEncoder().encode('{"object":"list","results":[{"object":"pa');
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
      controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "application/json", "content-length": String(head.length + 4096) },
  });
}

/** Reads `tests/fixtures/<path>` as text. */
export async function fixtureText(path: string): Promise<string> {
  return await readFile(new URL(`./fixtures/${path}`, import.meta.url), "utf8");
}

/** Path of a project's notes file. */
export function notesPath(rootDir: string): string {
  return join(rootDir, ".memo", "memory", "notes.md");
}

/** The notes file's text, or "" when it does not exist. */
export async function readNotes(rootDir: string): Promise<string> {
  try {
    return await readFile(notesPath(rootDir), "utf8");
  } catch {
    return "";
  }
}

/**
 * Replaces each note id in a notes file with its ordinal (`id-1`, `id-2` …
 * in order of first appearance). Note ids end in random characters by
 * design, so two runs of the same sync differ only there; everything else is
 * compared byte for byte.
 */
export function withOrdinalIds(notes: string): string {
  const ids = new Map<string, string>();
  return notes.replace(/("id":")([0-9a-z_-]+)(")/g, (_m, a: string, id: string, b: string) => {
    if (!ids.has(id)) ids.set(id, `id-${ids.size + 1}`);
    return a + ids.get(id)! + b;
  });
}

/** A fixed clock for the file store, so note times never depend on the wall clock. */
export const STORE_CLOCK = (): Date => new Date("2024-06-01T00:00:00.000Z");
