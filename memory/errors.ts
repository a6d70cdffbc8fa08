/**
 * Errors of the memory package. Each carries a stable `code`.
 *
 * @module
 */

/**
 * Base class of every error the memory package throws on purpose.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryError, NoteNotFoundError } from "@memo/memory";
 * const e = new MemoryError("Cannot read notes: disk gone");
 * assert.equal(e.code, "MEMORY_ERROR");
 * assert.equal(e.name, "MemoryError");
 * assert.ok(new NoteNotFoundError("01abc") instanceof MemoryError); // every error of the package
 * ```
 */
export class MemoryError extends Error {
  /** Stable machine-readable code. */
  readonly code: string = "MEMORY_ERROR";
  /** Extra facts about the failure; never holds secrets. */
  readonly details?: Record<string, unknown>;
  /** Creates the error; `details` must not hold secrets. */
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoryError";
    this.details = options?.details;
  }
}

/**
 * Input that the memory client refuses (an empty text, a bad id or cursor).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError } from "@memo/memory";
 * const e = new MemoryValidationError("Cannot remember: text is empty");
 * assert.equal(e.code, "MEMORY_VALIDATION_ERROR");
 * ```
 */
export class MemoryValidationError extends MemoryError {
  /** Always `"MEMORY_VALIDATION_ERROR"`. */
  override readonly code: string = "MEMORY_VALIDATION_ERROR";
  /** Creates the error with a message that says what was wrong. */
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.name = "MemoryValidationError";
  }
}

/**
 * A note id that the store does not hold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NoteNotFoundError } from "@memo/memory";
 * const e = new NoteNotFoundError("01abc");
 * assert.equal(e.message, "Cannot find note 01abc");
 * assert.equal(e.code, "NOTE_NOT_FOUND");
 * assert.deepEqual(e.details, { id: "01abc" });
 * ```
 */
export class NoteNotFoundError extends MemoryError {
  /** Always `"NOTE_NOT_FOUND"`. */
  override readonly code: string = "NOTE_NOT_FOUND";
  /** The id that was asked for. */
  readonly id: string;
  /** Creates the error for the id that was not found. */
  constructor(id: string) {
    super(`Cannot find note ${id}`, { details: { id } });
    this.name = "NoteNotFoundError";
    this.id = id;
  }
}

/**
 * The store's lock could not be taken in time (another process holds it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StoreLockError } from "@memo/memory";
 * const e = new StoreLockError("Cannot lock notes.md: held by pid 42 for 10000 ms");
 * assert.equal(e.code, "STORE_LOCK_TIMEOUT");
 * ```
 */
export class StoreLockError extends MemoryError {
  /** Always `"STORE_LOCK_TIMEOUT"`. */
  override readonly code: string = "STORE_LOCK_TIMEOUT";
  /** Creates the error with a message naming the holder of the lock. */
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.name = "StoreLockError";
  }
}

/**
 * An embedding model that cannot be loaded or used: an unknown model name, a
 * hub model whose files cannot be fetched, or `@huggingface/transformers`
 * missing. Recall falls back to the lexical engine where it can.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbedderUnavailableError, MemoryError } from "@memo/memory";
 * const e = new EmbedderUnavailableError(
 *   "Cannot load model Xenova/all-MiniLM-L6-v2: install @huggingface/transformers",
 * );
 * assert.equal(e.code, "EMBEDDER_UNAVAILABLE");
 * assert.equal(e.name, "EmbedderUnavailableError");
 * assert.ok(e instanceof MemoryError);
 * ```
 */
export class EmbedderUnavailableError extends MemoryError {
  /** Always `"EMBEDDER_UNAVAILABLE"`. */
  override readonly code: string = "EMBEDDER_UNAVAILABLE";
  /** Creates the error with a message that says which model and why. */
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.name = "EmbedderUnavailableError";
  }
}

/**
 * A write refused because `notes.md` holds git's conflict markers (an unresolved merge). Nothing
 * in the file is touched; `memo resolve` writes the merged file. The server answers it as
 * `McpConflictError` (`MCP_CONFLICT`, 409).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryError, NotesConflictError } from "@memo/memory";
 * const e = new NotesConflictError("/p/.memo/memory/notes.md");
 * assert.equal(e.code, "NOTES_CONFLICT");
 * assert.match(e.message, /memo resolve/);
 * assert.ok(e instanceof MemoryError);
 * ```
 */
export class NotesConflictError extends MemoryError {
  /** Always `"NOTES_CONFLICT"`. */
  override readonly code: string = "NOTES_CONFLICT";
  /** Creates the error for the conflicted file at `path`. */
  constructor(path: string) {
    super(
      `Cannot write notes: ${path} has an unresolved merge (git's conflict markers); ` +
        "run `memo resolve`, then `git add` the file",
      { details: { path } },
    );
    this.name = "NotesConflictError";
  }
}
