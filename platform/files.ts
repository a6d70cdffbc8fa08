/**
 * A small file API on the host's own calls: Deno's under Deno (loading `node:fs/promises` costs a
 * fresh Deno process about 25 ms of CPU, more than all of `memo --version`), `node:fs/promises`
 * under Node (loaded on first use). `memo hook`, which runs as a fresh process on every prompt,
 * reads and writes through it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostFiles } from "./files.ts";
 * const dir = await Deno.makeTempDir();
 * await hostFiles.writeAtomically(`${dir}/a.txt`, "hello");
 * assert.equal(await hostFiles.readText(`${dir}/a.txt`), "hello");
 * const [part] = await hostFiles.readRanges(`${dir}/a.txt`, [[1, 3]]);
 * assert.equal(new TextDecoder().decode(part), "el");
 * assert.equal(await hostFiles.stat(`${dir}/none`), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// Typed loosely on purpose: the npm build compiles this file without Deno's types.
// deno-lint-ignore no-explicit-any
const deno: any = g.Deno;

/**
 * What a file is: its size, modification time, inode, and whether it is a folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HostFileInfo } from "./files.ts";
 * const info: HostFileInfo = { size: 1, mtimeMs: 0, ino: 7, isDirectory: false };
 * assert.equal(info.size, 1);
 * ```
 */
export interface HostFileInfo {
  size: number;
  mtimeMs: number;
  ino: number;
  isDirectory: boolean;
}

/**
 * The file calls. A missing file reads as an error whose `code` is `ENOENT` (both hosts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type HostFiles, hostFiles } from "./files.ts";
 * const files: HostFiles = hostFiles;
 * await assert.rejects(files.readText("/no/such/memo/file"), { code: "ENOENT" });
 * ```
 */
export interface HostFiles {
  /** The file's text (UTF-8). */
  readText(path: string): Promise<string>;
  /** The bytes of each `[start, end)` range of a file, read with one open. */
  readRanges(path: string, ranges: readonly (readonly [number, number])[]): Promise<Uint8Array[]>;
  /** What the file is; undefined when it does not exist. */
  stat(path: string): Promise<HostFileInfo | undefined>;
  /** Replaces the file's content through a temporary file and a rename. */
  writeAtomically(path: string, data: string | Uint8Array): Promise<void>;
  /** Appends text, creating the file. */
  append(path: string, text: string): Promise<void>;
  /** Creates a folder and its parents. */
  mkdir(path: string): Promise<void>;
  /** The names in a folder. */
  readdir(path: string): Promise<string[]>;
  /** Removes a file (nothing when it is not there). */
  remove(path: string): Promise<void>;
}

function tmpName(path: string): string {
  return `${path}.${Math.random().toString(36).slice(2, 10)}.tmp`;
}

/** Deno's errors carry no `code`; give a missing file Node's. */
async function coded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof deno.errors.NotFound) (e as { code?: string }).code = "ENOENT";
    throw e;
  }
}

const denoFiles: HostFiles = {
  readText: (path) => coded(() => deno.readTextFile(path)),
  readRanges: (path, ranges) =>
    coded(async () => {
      const file = await deno.open(path, { read: true });
      try {
        const out: Uint8Array[] = [];
        for (const [start, end] of ranges) {
          const bytes = new Uint8Array(Math.max(0, end - start));
          await file.seek(start, deno.SeekMode.Start);
          let at = 0;
          while (at < bytes.length) {
            const n = await file.read(bytes.subarray(at));
            if (n === null) break;
            at += n;
          }
          out.push(bytes.subarray(0, at));
        }
        return out;
      } finally {
        file.close();
      }
    }),
  async stat(path) {
    try {
      const s = await deno.stat(path);
      return {
        size: s.size,
        mtimeMs: s.mtime ? s.mtime.getTime() : 0,
        ino: s.ino ?? 0,
        isDirectory: s.isDirectory,
      };
    } catch (e) {
      if (e instanceof deno.errors.NotFound || e instanceof deno.errors.NotADirectory) {
        return undefined;
      }
      throw e;
    }
  },
  async writeAtomically(path, data) {
    const tmp = tmpName(path);
    if (typeof data === "string") await deno.writeTextFile(tmp, data);
    else await deno.writeFile(tmp, data);
    await deno.rename(tmp, path);
  },
  append: (path, text) => deno.writeTextFile(path, text, { append: true }),
  mkdir: (path) => deno.mkdir(path, { recursive: true }),
  readdir: (path) =>
    coded(async () => {
      const names: string[] = [];
      for await (const e of deno.readDir(path)) names.push(e.name);
      return names;
    }),
  async remove(path) {
    try {
      await deno.remove(path);
    } catch (e) {
      if (!(e instanceof deno.errors.NotFound)) throw e;
    }
  },
};

async function fs() {
  return await import("node:fs/promises");
}

const nodeFiles: HostFiles = {
  readText: async (path) => await (await fs()).readFile(path, "utf8"),
  async readRanges(path, ranges) {
    const handle = await (await fs()).open(path, "r");
    try {
      const out: Uint8Array[] = [];
      for (const [start, end] of ranges) {
        const bytes = new Uint8Array(Math.max(0, end - start));
        const { bytesRead } = await handle.read(bytes, 0, bytes.length, start);
        out.push(bytes.subarray(0, bytesRead));
      }
      return out;
    } finally {
      await handle.close();
    }
  },
  async stat(path) {
    try {
      const s = await (await fs()).stat(path);
      return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, isDirectory: s.isDirectory() };
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw e;
    }
  },
  async writeAtomically(path, data) {
    const f = await fs();
    const tmp = tmpName(path);
    await f.writeFile(tmp, data);
    await f.rename(tmp, path);
  },
  append: async (path, text) => await (await fs()).appendFile(path, text),
  mkdir: async (path) => void await (await fs()).mkdir(path, { recursive: true }),
  readdir: async (path) => await (await fs()).readdir(path),
  remove: async (path) => await (await fs()).rm(path, { force: true }),
};

/**
 * The host's file calls.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostFiles } from "./files.ts";
 * assert.equal(typeof hostFiles.readText, "function");
 * ```
 */
export const hostFiles: HostFiles = deno ? denoFiles : nodeFiles;
