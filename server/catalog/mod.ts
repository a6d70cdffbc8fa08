/**
 * What memo offers besides running tools: the catalog of lists computed once per set of limits,
 * the resources, the prompts and `completion/complete`.
 *
 * @module
 */

export * from "./catalog.ts";
export * from "./resources.ts";
export * from "./prompts.ts";
export * from "./completion.ts";
