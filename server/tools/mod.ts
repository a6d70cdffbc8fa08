/**
 * The tools: their records (`records.ts`), the zod schema parts they share (`schemas.ts`), the
 * tidying of the JSON Schemas zod generates (`json_schema.ts`) and the result of a tool call
 * (`results.ts`). The kit the records are written with, the history tools and the `recall` tool's
 * engine text stay private to this folder. Loaded lazily: it pulls in zod.
 *
 * @module
 */

export * from "./records.ts";
export * from "./schemas.ts";
export * from "./json_schema.ts";
export * from "./results.ts";
