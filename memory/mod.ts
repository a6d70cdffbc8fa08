/**
 * `@memo/memory`: the note model, the `notes.md` codec, the file store and the
 * recall engines behind memo. Everything writes through the {@linkcode Memo}
 * client.
 *
 * @example
 * ```ts
 * import { openMemo } from "@memo/memory";
 * const memo = await openMemo({ rootDir: await Deno.makeTempDir() });
 * await memo.remember({ text: "The staging database is db-stage-2", labels: ["infra"] });
 * for (const hit of await memo.recall("staging database")) {
 *   console.log(hit.note.title, hit.score, hit.matched);
 * }
 * await memo.close();
 * ```
 *
 * @module
 */

export * from "./errors.ts";
export * from "./note.ts";
export * from "./paths.ts";
export * from "./cursor.ts";
export * from "./store.ts";
export * from "./codec.ts";
export * from "./file_store.ts";
export * from "./recall/mod.ts";
export * from "./memo.ts";
