/**
 * `memo hook`: memory in the agent's loop, through the clients' command hooks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookCommand, HOOK_CLIENTS } from "./mod.ts";
 *
 * assert.equal(hookCommand.name, "hook");
 * assert.ok(HOOK_CLIENTS.includes("claude-code"));
 * ```
 *
 * @module
 */

export * from "./hook.ts";
export * from "./clients.ts";
export * from "./hook_config.ts";
