/**
 * The process's memory, for the Cloud API server's index budget: what it holds now
 * ({@linkcode memoryUsage}) and a full collection on demand ({@linkcode collectGarbage}).
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// Typed loosely on purpose: the npm build compiles this file without Deno's types.
// deno-lint-ignore no-explicit-any
const deno: any = g.Deno;

/**
 * What the process holds, in bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoryUsage } from "./memory.ts";
 *
 * const usage: MemoryUsage = { rss: 90e6, heapTotal: 20e6, heapUsed: 14e6, external: 7e6 };
 * assert.ok(usage.heapUsed <= usage.heapTotal);
 * ```
 */
export interface MemoryUsage {
  /** Resident set size: the process's memory in RAM, as the operating system counts it. */
  rss: number;
  /** V8's heap as reserved. */
  heapTotal: number;
  /** V8's heap in use (live objects and garbage not yet collected). */
  heapUsed: number;
  /** Memory outside the heap that JavaScript objects own (typed arrays' buffers). */
  external: number;
}

/**
 * What the process holds now.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryUsage } from "./memory.ts";
 *
 * const usage = memoryUsage();
 * assert.ok(usage.rss > usage.heapUsed);
 * ```
 */
export function memoryUsage(): MemoryUsage {
  const { rss, heapTotal, heapUsed, external } = deno
    ? deno.memoryUsage()
    : g.process.memoryUsage();
  return { rss, heapTotal, heapUsed, external };
}

let gc: (() => void) | undefined;
/** glibc's `malloc_trim`, once looked up; null: not available here. */
let trim: ((pad: number | bigint) => number) | null | undefined;

/**
 * Options of {@linkcode collectGarbage}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CollectGarbageOptions } from "./memory.ts";
 *
 * const options: CollectGarbageOptions = { release: true };
 * assert.equal(options.release, true);
 * ```
 */
export interface CollectGarbageOptions {
  /**
   * Also hand the allocator's free pages back to the system (glibc's `malloc_trim(0)`, under Deno
   * on Linux with the FFI permission; elsewhere nothing more is done). Freed memory between live
   * blocks otherwise stays in the process's RSS.
   * @default false
   */
  release?: boolean;
}

/**
 * Runs a full garbage collection now (V8's `gc()`, made available on first use without a command
 * line flag), and with `release` hands the allocator's free pages back to the system. The Cloud API
 * server runs one after its index budget evicted projects, so that the evicted indexes' memory is
 * reused before the process asks the system for more, and releases it once the instance is idle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { collectGarbage, prepareGarbageCollection } from "./memory.ts";
 *
 * let held: unknown = new Uint8Array(8 << 20);
 * held = undefined;
 * await prepareGarbageCollection();
 * collectGarbage({ release: true });
 * assert.equal(held, undefined);
 * ```
 */
export function collectGarbage(options: CollectGarbageOptions = {}): void {
  if (!gc) {
    const own = g.gc;
    if (typeof own === "function") gc = () => own();
    else if (builtins) {
      builtins.v8.setFlagsFromString("--expose-gc");
      gc = builtins.vm.runInNewContext("gc") as () => void;
    } else {
      // node:v8 and node:vm load on first use, not with every process that imports the
      // platform: this collection is skipped, the next one runs.
      void prepareGarbageCollection();
      return;
    }
  }
  gc();
  if (!options.release) return;
  if (trim === undefined) trim = mallocTrim();
  trim?.(0);
}

/** node:v8 and node:vm, once loaded. */
let builtins: { v8: typeof import("node:v8"); vm: typeof import("node:vm") } | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads what {@linkcode collectGarbage} needs (node:v8 and node:vm), so that its first call
 * collects; a process that never collects never loads them. The Cloud API server's stores call it
 * when they open.
 *
 * @example
 * ```ts
 * import { collectGarbage, prepareGarbageCollection } from "./memory.ts";
 * await prepareGarbageCollection();
 * collectGarbage(); // runs now
 * ```
 */
export function prepareGarbageCollection(): Promise<void> {
  return loading ??= Promise.all([import("node:v8"), import("node:vm")]).then(([v8, vm]) => {
    builtins = { v8: v8.default ?? v8, vm: vm.default ?? vm } as typeof builtins;
  });
}

function mallocTrim(): ((pad: number | bigint) => number) | null {
  try {
    if (!deno?.dlopen || deno.build?.os !== "linux") return null;
    if (deno.permissions?.querySync?.({ name: "ffi" })?.state !== "granted") return null;
    const lib = deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
    });
    return lib.symbols.malloc_trim;
  } catch {
    return null; // not glibc (musl has no malloc_trim), or no FFI
  }
}
