/**
 * Internal: the file calls of `memo hook` on `node:fs/promises`, for a caller that hands none
 * (`CliIO.files`; `cli.ts` hands the host's own).
 *
 * @module
 */

import type { CliFiles } from "../context.ts";

/** The hook's file calls: `io.files`, else these (loaded on first use). */
export async function hookFiles(given: CliFiles | undefined): Promise<CliFiles> {
  if (given) return given;
  const fs = await import("node:fs/promises");
  const tmp = (path: string) => `${path}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  return {
    readText: (path) => fs.readFile(path, "utf8"),
    async readRanges(path, ranges) {
      const handle = await fs.open(path, "r");
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
        const s = await fs.stat(path);
        return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, isDirectory: s.isDirectory() };
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === "ENOENT" || code === "ENOTDIR") return undefined;
        throw e;
      }
    },
    async writeAtomically(path, data) {
      const t = tmp(path);
      await fs.writeFile(t, data);
      await fs.rename(t, path);
    },
    append: (path, text) => fs.appendFile(path, text),
    mkdir: async (path) => void await fs.mkdir(path, { recursive: true }),
    readdir: (path) => fs.readdir(path),
    remove: (path) => fs.rm(path, { force: true }),
  };
}
