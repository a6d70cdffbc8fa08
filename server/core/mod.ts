/**
 * The MCP core that the protocol server and the SDK bridge share (`core.ts`), the failure it hands
 * to JSON-RPC (`rpc_failure.ts`), and the one-delay deadline queue its timeouts and the HTTP
 * layer's disconnect watch run on (`deadline_queue.ts`). Authorization, redaction and the mapping
 * of runtime errors stay private to this folder.
 *
 * @module
 */

export * from "./core.ts";
export * from "./rpc_failure.ts";
export * from "./deadline_queue.ts";
