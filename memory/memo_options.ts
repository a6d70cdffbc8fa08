/**
 * The options of {@linkcode openMemo}: where the notes live, the recall engine and index, the
 * embedding side and the secrets policy.
 *
 * @module
 */

import type { LexicalIndex, RecallEngine } from "./recall/types.ts";
import type { Embedder, EmbedderLoader, ModelProgress } from "./embed/types.ts";
import type { FusionOptions } from "./recall/fusion.ts";
import type { MemoryStore } from "./store/store.ts";
import type { SecretsPolicy } from "./secrets/policy.ts";
import type { ScopeSettings } from "./scopes/open_scopes.ts";

/**
 * Options of {@linkcode openMemo}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoPaths, type MemoOptions, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const options: MemoOptions = { rootDir: dir, engine: "lexical", indexCache: false };
 * const memo = await openMemo(options);
 * assert.equal(memo.engine, "lexical");
 * await memo.remember({ text: "hello" });
 * assert.ok((await Deno.readTextFile(memoPaths(dir).notes)).includes("hello"));
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface MemoOptions {
  /**
   * Project root; notes live in `<rootDir>/.memo/memory/notes.md`.
   * @default "." (the current directory)
   */
  rootDir?: string;
  /**
   * Store to use instead of the file store under `rootDir`.
   * @default a `FileMemoryStore` on `rootDir`
   */
  store?: MemoryStore;
  /**
   * Serve several scopes as one memory (a `ScopedMemoryStore` over `rootDir`'s `project` and
   * `local` notes and `memoHome`'s `user` notes): reads see every scope given, writes go to the
   * draft's `scope`. Ignored when `store` is given.
   * @default only the project's notes, as a `FileMemoryStore` on `rootDir`
   */
  scopes?: ScopeSettings;
  /**
   * Engine used when a recall does not name one.
   * @default "auto"
   */
  engine?: RecallEngine;
  /**
   * Lexical index to keep in step with the store.
   * @default createLexicalIndex()
   */
  index?: LexicalIndex;
  /**
   * Keep a snapshot of the lexical index in `<rootDir>/.memo/cache/lexical-index.bin`, so that
   * reopening an unchanged notes.md loads the index instead of building it. It is used only when
   * taken, with the same index options, of exactly the notes loaded or of their first N (the
   * same bytes of notes.md by SHA-256, grown since only by whole notes; with another store, the
   * same ids, content and order); anything else builds the index as usual. `true` writes one
   * after a build (or an addition of appended notes) that took at least 200 ms or added more
   * than a tenth of all notes, `"always"` after every one, `false` neither reads nor writes one.
   * Nothing is written unless `<rootDir>/.memo/memory/` exists. Only with the default index, and
   * with a given `store` only when `rootDir` is given too.
   * @default true
   */
  indexCache?: boolean | "always";
  /**
   * Number of recall answers kept for repeated identical recalls (same query and options); the
   * cache is emptied whenever the notes change, by this client or by another process. `0`
   * turns it off. Hits served from it are shared between callers: treat them as read-only.
   * @default 256
   */
  recallCacheSize?: number;
  /**
   * Milliseconds between two checks for other processes' writes while a {@linkcode Memo.watch}
   * listener is registered (a check of the file store is one `stat` of notes.md, plus a reload only
   * when it changed). No check runs while nobody watches. A positive number.
   * @default 250
   */
  watchIntervalMs?: number;
  /**
   * Embed notes on this machine, with `embeddingModel` (or `embedder`), for the `vector`,
   * `hybrid` and `auto` engines. `false` turns embedding off: `vector` and `hybrid` refuse and
   * `auto` is lexical. An `embedder` given in code is used either way.
   * @default true
   */
  localEmbeddings?: boolean;
  /**
   * The embedding model: `use-lite` (Universal Sentence Encoder lite, shipped inside its npm
   * package, so it works offline) or a Hugging Face hub id such as `Xenova/all-MiniLM-L6-v2`
   * (through `@huggingface/transformers`, which must be installed, and the network).
   * @default "use-lite"
   */
  embeddingModel?: string;
  /**
   * An embedder, or a function that loads one, to use instead of loading `embeddingModel`.
   * @default undefined (load `embeddingModel`)
   */
  embedder?: Embedder | EmbedderLoader;
  /**
   * Called with the model's load (and download) progress.
   * @default undefined
   */
  onModelProgress?: (progress: ModelProgress) => void;
  /**
   * Load the embedder shortly after {@linkcode Memo.load} and embed new and changed notes in the
   * background, in batches (a write never waits for it), when the default `engine` uses vectors
   * (`vector`, `hybrid`, or `auto` with a model it fuses with: see `AUTO_LEXICAL_MODELS`); else
   * from the first `vector` or `hybrid` recall (or {@linkcode Memo.embed}) on. `false`: nothing is embedded except by {@linkcode Memo.embed}, and `auto` uses
   * the vectors the on-disk cache already holds (the `memo` command's short commands open the
   * client this way).
   * @default true
   */
  embedInBackground?: boolean;
  /**
   * Keep computed vectors in `<rootDir>/.memo/cache/embeddings/`, keyed by model and content
   * hash, so that a restart or another process embeds nothing twice. With `scopes`, each scope's
   * vectors are kept in its own cache folder: `<rootDir>/.memo/cache/local/embeddings/` for
   * local notes, `<memoHome>/cache/embeddings/` for the user's.
   * @default true, except with a given `store` and no `rootDir`
   */
  embeddingCache?: boolean;
  /**
   * How the hybrid engine (and `auto`) fuses the lexical and the vector ranking.
   * @default DEFAULT_FUSION
   */
  fusion?: Partial<FusionOptions>;
  /**
   * What a write (`remember`, `rememberMany`, `update`) does with a detected secret in a title,
   * text, label or source: `redact` replaces it with `[redacted:<rule-id>]` before anything is
   * written, `refuse` throws `SecretsRefusedError` and writes nothing, `allow` turns the guard
   * off. (The runtimes read it from `MEMO_SECRETS` and `.memo/config.json`'s `secrets`.)
   * @default "redact"
   */
  secrets?: SecretsPolicy;
}
