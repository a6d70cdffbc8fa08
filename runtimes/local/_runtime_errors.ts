/**
 * The local runtime's errors: the memory and connectors packages' refusals as
 * {@linkcode MemoRuntimeError}s, so that no caller needs their classes.
 *
 * @module
 */

import type { MemoStats } from "@memo/memory";
import { MemoRuntimeError } from "../errors.ts";
import { secretsRefusal } from "../secrets.ts";

/**
 * Maps a refusal of the memory or connectors package, matched by its `code`, to a
 * {@linkcode MemoRuntimeError}: invalid input and a write the secrets guard refused
 * (`SECRETS_REFUSED`, with `details.secrets`) → `INVALID_INPUT`, a bad connector configuration or
 * an embedder that is off or cannot load (`EMBEDDER_UNAVAILABLE`) → `CONFIG`, an unknown note or
 * connector → `NOTE_NOT_FOUND` / `CONNECTOR_NOT_FOUND`, a write refused during an unresolved git
 * merge (`NOTES_CONFLICT`) → `CONFLICT`. Anything else (I/O) passes through
 * unchanged.
 */
export function runtimeErrorOf(error: unknown): unknown {
  const refused = secretsRefusal(error);
  if (refused) return refused;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "MEMORY_VALIDATION_ERROR":
      return new MemoRuntimeError("INVALID_INPUT", message, { cause: error });
    case "CONNECTOR_CONFIG":
    case "EMBEDDER_UNAVAILABLE":
      return new MemoRuntimeError("CONFIG", message, { cause: error });
    case "NOTE_NOT_FOUND":
      return new MemoRuntimeError("NOTE_NOT_FOUND", message, {
        cause: error,
        details: { id: String((error as { id?: unknown }).id ?? "") },
      });
    case "NOTES_CONFLICT":
      return new MemoRuntimeError("CONFLICT", message, {
        cause: error,
        details: (error as { details?: Record<string, unknown> }).details,
      });
    case "UNKNOWN_CONNECTOR":
      return new MemoRuntimeError("CONNECTOR_NOT_FOUND", message, {
        cause: error,
        details: { ids: (error as { ids?: unknown }).ids },
      });
    default:
      return error;
  }
}

/**
 * Throws `CONFLICT` while the store's file holds an unresolved git merge, after catching up with
 * the file: what a connector pass checks before it fetches anything.
 */
export async function refuseUnresolvedMerge(memo: { stats(): Promise<MemoStats> }): Promise<void> {
  const merge = (await memo.stats()).unresolvedMerge;
  if (!merge) return;
  // Loaded only now: `memo mcp` starts without the memory package.
  const { NotesConflictError } = await import("@memo/memory");
  throw runtimeErrorOf(new NotesConflictError(merge.path));
}

/** The refusal of what the memory client cannot do. */
export function unsupported(action: string): MemoRuntimeError {
  return new MemoRuntimeError("UNAVAILABLE", `Cannot ${action}: this memory client cannot`);
}
