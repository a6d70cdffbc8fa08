/**
 * `@memo/connectors`: built-in connectors that pull GitHub Discussions (`RepoHostConnector`, type
 * `discussions`) and Notion pages (`WorkspaceConnector`, type `pages`) into memo's notes, the
 * registry that builds them from `.memo/config.json`, and the all-or-nothing runner.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RepoHostConnector, runConnectors } from "@memo/connectors";
 * import { openMemo } from "@memo/memory";
 *
 * // Answers like GitHub's GraphQL endpoint: one page holding one discussion.
 * const answerLikeGitHub = () =>
 *   Promise.resolve(Response.json({
 *     data: {
 *       repository: {
 *         nameWithOwner: "octo-org/hello-world",
 *         hasDiscussionsEnabled: true,
 *         discussions: {
 *           pageInfo: { hasNextPage: false, endCursor: null },
 *           nodes: [{
 *             number: 42,
 *             title: "How do I deploy?",
 *             body: "Run `make deploy`.",
 *             url: "https://github.com/octo-org/hello-world/discussions/42",
 *             createdAt: "2024-05-01T10:00:00Z",
 *             updatedAt: "2024-05-02T09:30:00Z",
 *             author: { login: "monalisa" },
 *             category: { name: "Q&A" },
 *             answer: null,
 *             comments: { totalCount: 3 },
 *           }],
 *         },
 *       },
 *     },
 *   }));
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir });
 * const github = new RepoHostConnector({
 *   repositories: ["octo-org/hello-world"],
 *   token: "ghp_example", // in real use: Deno.env.get("GITHUB_TOKEN")
 *   fetch: answerLikeGitHub, // in real use: left out
 * });
 * const result = await runConnectors([github], memo);
 * assert.equal(result.written, 1);
 * assert.deepEqual(result.errors, []);
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
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
export * from "./connector_memo.ts";
export * from "./describe_error.ts";
export * from "./sync.ts";
export * from "./retry_after.ts";
export * from "./github/mod.ts";
export * from "./notion/mod.ts";
