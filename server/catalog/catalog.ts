/**
 * The catalog: everything about the MCP surface that can be computed once per set of limits — zod
 * validators, the JSON Schemas, and the serialized `tools/list`, `prompts/list` and
 * `resources/templates/list` results for each protocol version. Loaded lazily (it pulls in zod).
 *
 * @module
 */

import type { z } from "zod";
import { McpValidationError } from "../errors.ts";
import { type PromptName, PROMPTS } from "./prompts.ts";
import {
  describeIssues,
  promptSchemas,
  type SchemaLimits,
  toJSONSchema,
} from "../tools/schemas.ts";
import { type BoundTool, type Tool, TOOLS } from "../tools/records.ts";
import { TEMPLATES } from "./resources.ts";
import { compactJsonSchema } from "../tools/json_schema.ts";
import { versionFeatures } from "../protocol/versions.ts";

/**
 * One tool record, bound to the limits, with its JSON Schemas.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CatalogTool, getCatalog } from "./catalog.ts";
 *
 * const catalog = getCatalog({ defaultPageSize: 25, maxPageSize: 100 });
 * const tool: CatalogTool = catalog.tools.get("get_note")!;
 * assert.equal(tool.info.title, "Get note");
 * assert.deepEqual(tool.inputJson.required, ["id"]);
 * ```
 */
export interface CatalogTool extends BoundTool {
  /** The tool's record: name, title, description, annotations. */
  info: Tool;
  /** JSON Schema of the arguments. */
  inputJson: Record<string, unknown>;
  /** JSON Schema of `structuredContent`. */
  outputJson: Record<string, unknown>;
}

/**
 * The catalog of one set of limits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Catalog, getCatalog } from "./catalog.ts";
 *
 * const catalog: Catalog = getCatalog({ defaultPageSize: 25, maxPageSize: 100 });
 * const newer = JSON.parse(catalog.toolsList("2025-06-18")).tools[0];
 * const older = JSON.parse(catalog.toolsList("2024-11-05")).tools[0];
 * assert.ok("outputSchema" in newer && !("outputSchema" in older));
 * assert.deepEqual(catalog.parsePromptArgs("review_memory", undefined), {});
 * ```
 */
export interface Catalog {
  tools: ReadonlyMap<string, CatalogTool>;
  /** Serialized `tools/list` result for a protocol version. */
  toolsList(version: string): string;
  /** Serialized `prompts/list` result for a protocol version. */
  promptsList(version: string): string;
  /** Serialized `resources/templates/list` result. */
  templatesList: string;
  /** Validates prompt arguments; throws `McpValidationError`. */
  parsePromptArgs(name: PromptName, args: unknown): Record<string, string | undefined>;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return compactJsonSchema(json);
}

function build(limits: SchemaLimits): Catalog {
  const tools = new Map<string, CatalogTool>();
  for (const tool of TOOLS) {
    const bound = tool.bind(limits);
    tools.set(tool.name, {
      ...bound,
      info: { ...tool, description: bound.description },
      inputJson: jsonSchema(bound.input, "input"),
      outputJson: jsonSchema(bound.output, "output"),
    });
  }
  const toolsByFeature = new Map<string, string>();
  const toolsList = (version: string) => {
    const f = versionFeatures(version);
    const key = `${f.annotations}${f.structured}`;
    let cached = toolsByFeature.get(key);
    if (cached === undefined) {
      const list = [...tools.values()].map((t) => {
        const entry: Record<string, unknown> = { name: t.info.name };
        if (f.structured) entry.title = t.info.title;
        entry.description = t.info.description;
        entry.inputSchema = t.inputJson;
        if (f.structured) entry.outputSchema = t.outputJson;
        if (f.annotations) entry.annotations = { title: t.info.title, ...t.info.annotations };
        return entry;
      });
      cached = JSON.stringify({ tools: list });
      toolsByFeature.set(key, cached);
    }
    return cached;
  };
  const promptsByFeature = new Map<boolean, string>();
  const promptsList = (version: string) => {
    const titles = versionFeatures(version).structured;
    let cached = promptsByFeature.get(titles);
    if (cached === undefined) {
      const list = Object.entries(PROMPTS).map(([name, p]) => {
        const shape = promptSchemas[name as PromptName].shape as Record<string, z.ZodType>;
        const entry: Record<string, unknown> = { name };
        if (titles) entry.title = p.title;
        entry.description = p.description;
        entry.arguments = Object.entries(shape).map(([arg, schema]) => ({
          name: arg,
          description: schema.description,
          required: !schema.safeParse(undefined).success,
        }));
        return entry;
      });
      cached = JSON.stringify({ prompts: list });
      promptsByFeature.set(titles, cached);
    }
    return cached;
  };
  return {
    tools,
    toolsList,
    promptsList,
    templatesList: JSON.stringify({ resourceTemplates: TEMPLATES }),
    parsePromptArgs(name, args) {
      const parsed = promptSchemas[name].safeParse(args ?? {});
      if (parsed.success) return parsed.data as Record<string, string | undefined>;
      const { reason, issues } = describeIssues(parsed.error);
      throw new McpValidationError(`Cannot get prompt ${name}: invalid arguments (${reason})`, {
        details: { prompt: name, issues },
      });
    },
  };
}

const cache = new Map<string, Catalog>();

/**
 * The catalog for these limits (and recall settings, which the `recall` tool's description names),
 * built at the first call and then cached.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { getCatalog } from "./catalog.ts";
 *
 * const limits = { defaultPageSize: 25, maxPageSize: 100 };
 * assert.equal(getCatalog(limits), getCatalog({ ...limits })); // cached by value
 * assert.throws(
 *   () => getCatalog(limits).parsePromptArgs("recall_context", {}),
 *   /Cannot get prompt recall_context: invalid arguments/,
 * );
 * ```
 */
export function getCatalog(limits: SchemaLimits): Catalog {
  const key = `${limits.defaultPageSize}/${limits.maxPageSize}/${JSON.stringify(limits.recall)}`;
  let catalog = cache.get(key);
  if (!catalog) {
    catalog = build(limits);
    cache.set(key, catalog);
  }
  return catalog;
}
