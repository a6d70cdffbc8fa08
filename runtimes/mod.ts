/**
 * Runtimes: the {@linkcode MemoMcpRuntime} interface and its implementations (local, hybrid and
 * cloud), the Cloud API client, their errors, and the factories from configuration and from
 * `MEMO_*` variables. Nothing here knows MCP: the server and the CLI both call a runtime.
 *
 * @module
 */

export * from "./types.ts";
export * from "./history_types.ts";
export * from "./errors.ts";
export * from "./factory.ts";
export * from "./runtime_config.ts";
export * from "./local/mod.ts";
export * from "./cloud/mod.ts";
export * from "./hybrid/mod.ts";
export * from "./start/mod.ts";
export * from "./start/from_env.ts";
export * from "./batch_input.ts";
export * from "./listeners.ts";
export * from "./memo_options.ts";
export * from "./secrets.ts";
export * from "./delegate.ts";
export * from "./remember_result.ts";
export * from "./recall_detailed.ts";
export * from "./complete_ids.ts";
export * from "./scopes.ts";
