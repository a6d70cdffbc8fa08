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
 * import { MemoryError } from "@memo/memory";
 * try {
 *   throw new MemoryError("Cannot read notes: disk gone");
 * } catch (e) {
 *   if (e instanceof MemoryError) console.log(e.code); // "MEMORY_ERROR"
 * }
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
 * import { MemoryValidationError } from "@memo/memory";
 * const e = new MemoryValidationError("Cannot remember: text is empty");
 * console.log(e.code); // "MEMORY_VALIDATION_ERROR"
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
 * import { NoteNotFoundError } from "@memo/memory";
 * const e = new NoteNotFoundError("01abc");
 * console.log(e.message); // "Cannot find note 01abc"
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
 * import { StoreLockError } from "@memo/memory";
 * const e = new StoreLockError("Cannot lock notes.md: held by pid 42 for 10000 ms");
 * console.log(e.code); // "STORE_LOCK_TIMEOUT"
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
