/**
 * The MCP core that the protocol server and the SDK bridge share, the failure it hands to
 * JSON-RPC, the deadline queue its timeouts and the HTTP layer's disconnect watch run on, and the
 * hook through which it hears of a request's abort without making its signal.
 *
 * @module
 */

export * from "./core.ts";
export * from "./rpc_failure.ts";
export * from "./deadline_queue.ts";
export * from "./request_abort.ts";
