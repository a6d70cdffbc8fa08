/**
 * Internal to `@memo/connectors`: what the built-in connectors share (one HTTP exchange with a
 * whole-answer timeout, API URL checks, paging cursors, token and message text, the connector id).
 * The package's `mod.ts` does not re-export this folder, so none of it is public API.
 *
 * @module
 */

export * from "./http.ts";
export * from "./paging.ts";
export * from "./text.ts";
export * from "./connector_id.ts";
