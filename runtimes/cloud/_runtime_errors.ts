/**
 * The cloud runtime's errors: cloud failures and the connectors' refusals as
 * {@linkcode MemoRuntimeError}s, and its refusal of the engines it lacks.
 *
 * @module
 */

import { isMemoCloudError, type MemoCloudError } from "./errors.ts";
import { MemoRuntimeError } from "../errors.ts";

/**
 * A cloud failure as a {@linkcode MemoRuntimeError}, by code:
 *
 * | cloud code | runtime code |
 * |---|---|
 * | `not_found` on a note | `NOTE_NOT_FOUND` (`details.id`) |
 * | `not_found` elsewhere (a wrong base URL) | `CONFIG` |
 * | `invalid_request`, `payload_too_large`, `conflict` | `INVALID_INPUT` |
 * | `conflict` of a write still running (`in_progress`) | `UNAVAILABLE` |
 * | `unauthorized`, `forbidden`, `config` | `CONFIG` |
 * | `rate_limited`, `internal`, `unavailable`, `timeout` | `UNAVAILABLE` |
 *
 * The connectors' refusals map as in the local runtime. Anything else passes through.
 */
export function runtimeErrorOf(error: unknown, noteId?: string): unknown {
  if (isMemoCloudError(error)) return fromCloud(error, noteId);
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "CONNECTOR_CONFIG") return new MemoRuntimeError("CONFIG", message, { cause: error });
  if (code === "UNKNOWN_CONNECTOR") {
    return new MemoRuntimeError("CONNECTOR_NOT_FOUND", message, {
      cause: error,
      details: { ids: (error as { ids?: unknown }).ids },
    });
  }
  return error;
}

function fromCloud(error: MemoCloudError, noteId: string | undefined): MemoRuntimeError {
  const options = { cause: error };
  switch (error.code) {
    case "not_found":
      return noteId === undefined
        ? new MemoRuntimeError("CONFIG", error.message, options)
        : new MemoRuntimeError("NOTE_NOT_FOUND", `Cannot find note ${noteId}`, {
          ...options,
          details: { id: noteId },
        });
    case "conflict":
      return error.details?.reason === "in_progress"
        ? new MemoRuntimeError("UNAVAILABLE", error.message, options)
        : new MemoRuntimeError("INVALID_INPUT", error.message, options);
    case "invalid_request":
    case "payload_too_large":
      return new MemoRuntimeError("INVALID_INPUT", error.message, options);
    case "unauthorized":
    case "forbidden":
    case "config":
      return new MemoRuntimeError("CONFIG", error.message, options);
    default:
      return new MemoRuntimeError("UNAVAILABLE", error.message, options);
  }
}

/** Refuses the `vector` and `hybrid` engines: the cloud recalls lexically. */
export function checkEngine(engine: string | undefined): void {
  if (engine === "vector" || engine === "hybrid") {
    throw new MemoRuntimeError(
      "INVALID_INPUT",
      `Cannot recall with the ${engine} engine: the cloud runtime is lexical`,
    );
  }
}
