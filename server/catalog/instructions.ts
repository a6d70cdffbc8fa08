/**
 * The instructions memo's own servers send the model (`memo mcp`, `memo serve`, `deno serve
 * http.ts`): in `initialize` and in `server/discover`. A library caller sets its own, or none.
 *
 * @module
 */

/**
 * What memo tells the model about itself: recall before answering, remember what is settled, one
 * self-contained note, corrections over duplicates, no secrets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_MCP_INSTRUCTIONS } from "@memo/mcp-server";
 *
 * assert.ok(MEMO_MCP_INSTRUCTIONS.includes("call recall"));
 * assert.ok(MEMO_MCP_INSTRUCTIONS.endsWith("Never store secrets."));
 * ```
 */
export const MEMO_MCP_INSTRUCTIONS: string =
  "memo is this project's long-term memory. Before answering questions about the project, its decisions, conventions or past work, call recall with the topic. When the user settles something worth keeping (a decision, a convention, a command that works, a pitfall), store it with remember as one self-contained note with labels. Correct outdated notes with update_note instead of adding duplicates. Never store secrets.";
