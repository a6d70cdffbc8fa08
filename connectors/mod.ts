/**
 * `@memo/connectors`: built-in connectors that pull GitHub Discussions
 * (`RepoHostConnector`, type `discussions`) and Notion pages
 * (`WorkspaceConnector`, type `pages`) into memo's notes, the registry that
 * builds them from `.memo/config.json`, and the all-or-nothing runner.
 *
 * @example
 * ```ts
 * import { RepoHostConnector, runConnectors, WorkspaceConnector } from "@memo/connectors";
 * import { openMemo } from "@memo/memory";
 *
 * const memo = await openMemo({ rootDir: "." });
 * const result = await runConnectors([
 *   new RepoHostConnector({
 *     repositories: ["octo-org/hello-world"],
 *     token: Deno.env.get("GITHUB_TOKEN"),
 *   }),
 *   new WorkspaceConnector({
 *     databaseId: "0123456789abcdef0123456789abcdef",
 *     token: Deno.env.get("NOTION_TOKEN"),
 *   }),
 * ], memo);
 * console.log(result.written, result.errors);
 * await memo.close();
 * ```
 *
 * @module
 */

export * from "./types.ts";
export * from "./errors.ts";
export * from "./limits.ts";
export * from "./config.ts";
export * from "./state.ts";
export * from "./registry.ts";
export * from "./runner.ts";
export * from "./sync.ts";
export * from "./retry_after.ts";
export * from "./github/mod.ts";
export * from "./notion/mod.ts";
