/**
 * The protocol around the core: JSON-RPC framing, the protocol versions, the `initialize` result,
 * and the two eras, **stateless** (2026-07-28) and **session** (the 2025 handshake revisions).
 *
 * @module
 */

export * from "./jsonrpc.ts";
export * from "./versions.ts";
export * from "./capabilities.ts";
export * from "./stateless.ts";
export * from "./session.ts";
export * from "./request_era.ts";
