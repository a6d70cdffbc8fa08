/**
 * The MCP core that the protocol server and the SDK bridge share
 * (`core.ts`), and the one-delay deadline queue its timeouts and the HTTP
 * layer's disconnect watch run on (`deadline_queue.ts`). The redaction of
 * arguments and the mapping of runtime errors stay private to this folder.
 *
 * @module
 */

export * from "./core.ts";
export * from "./deadline_queue.ts";
