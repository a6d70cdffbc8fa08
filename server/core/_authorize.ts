/**
 * Whether a write tool call may run: read-only mode, a token that does not
 * grant writes, then the `authorize` option (a throw counts as a refusal).
 *
 * @module
 */

import { McpAuthorizationError } from "../errors.ts";
import type { AuthorizationContext, ResolvedMemoMcpOptions } from "../options.ts";
import type { Redaction } from "./_redact.ts";

/**
 * Throws {@linkcode McpAuthorizationError} when the write `tool` may not run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { Redaction } from "./_redact.ts";
 * import { authorizeWrite } from "./_authorize.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const options = resolveMemoMcpOptions({ runtime, authorize: (ctx) => ctx.tool === "remember" });
 * const ctx = { transport: "stdio" as const };
 * await authorizeWrite(options, "remember", new Redaction({}, undefined), ctx);
 * await assert.rejects(
 *   authorizeWrite(options, "forget", new Redaction({}, undefined), ctx),
 *   /Cannot call forget: not authorized/,
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function authorizeWrite(
  options: ResolvedMemoMcpOptions,
  tool: string,
  redaction: Redaction,
  ctx: Omit<AuthorizationContext, "tool" | "arguments">,
): Promise<void> {
  const { readOnly, authorize } = options;
  if (readOnly) {
    throw new McpAuthorizationError(`Cannot call ${tool}: the server is read-only`, {
      details: { tool },
    });
  }
  if (ctx.authInfo?.readOnly === true) {
    throw new McpAuthorizationError(`Cannot call ${tool}: the access token does not grant writes`, {
      details: { tool, reason: "insufficient_scope" },
    });
  }
  if (!authorize) return;
  let allowed = false;
  try {
    allowed = await authorize({
      tool,
      arguments: redaction.args,
      transport: ctx.transport,
      request: ctx.request,
      authInfo: ctx.authInfo,
    }) === true;
  } catch {
    allowed = false;
  }
  if (!allowed) {
    throw new McpAuthorizationError(`Cannot call ${tool}: not authorized`, { details: { tool } });
  }
}
