/**
 * The protocol around the core: JSON-RPC framing (`jsonrpc.ts`), the protocol versions
 * (`versions.ts`), the `initialize` result and capabilities (`capabilities.ts`), and the two eras:
 * **stateless** (2026-07-28, no handshake: `stateless.ts`) and **session** (the 2025 handshake
 * revisions: `session.ts`), with the choice between them for each request (`request_era.ts`).
 *
 * @module
 */

export * from "./jsonrpc.ts";
export * from "./versions.ts";
export * from "./capabilities.ts";
export * from "./stateless.ts";
export * from "./session.ts";
export * from "./request_era.ts";
