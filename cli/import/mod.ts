/**
 * `memo import`: the readers that turn what other memory tools keep (the official MCP memory
 * server's `memory.jsonl`, Claude Code memory files, folders of markdown notes, memo's own JSONL
 * export) into note drafts with the file and line each came from, and the command that writes them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtemp, rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { readImportSource } from "./mod.ts";
 *
 * const dir = await mkdtemp(join(tmpdir(), "memo-import-"));
 * try {
 *   const file = join(dir, "memory.jsonl");
 *   await writeFile(file, '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}\n');
 *   const read = await readImportSource(file);
 *   assert.equal(read.format, "server-memory");
 *   assert.equal(read.records[0].draft.source, "server-memory:Alice");
 * } finally {
 *   await rm(dir, { recursive: true });
 * }
 * ```
 *
 * @module
 */

export * from "./types.ts";
export * from "./read_source.ts";
export * from "./server_memory.ts";
export * from "./memo_jsonl.ts";
export * from "./claude.ts";
export * from "./markdown.ts";
export * from "./command.ts";
