/**
 * The MCP core that the protocol server and the SDK bridge share, the failure it hands to
 * JSON-RPC, and the deadline queue its timeouts and the HTTP layer's disconnect watch run on.
 *
 * @module
 */

export * from "./core.ts";
export * from "./rpc_failure.ts";
export * from "./deadline_queue.ts";
