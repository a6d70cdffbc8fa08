/**
 * The tools: their records, the zod schema parts they share, the tidying of the JSON Schemas
 * zod generates and the result of a tool call. Loaded lazily: it pulls in zod.
 *
 * @module
 */

export * from "./records.ts";
export * from "./schemas.ts";
export * from "./json_schema.ts";
export * from "./results.ts";
