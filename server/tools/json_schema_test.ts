import assert from "node:assert/strict";
import { compactJsonSchema } from "./json_schema.ts";

Deno.test("compactJsonSchema() drops only what constrains nothing", () => {
  const schema = {
    type: "object",
    properties: {
      count: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
      limit: { type: "integer", minimum: 1, maximum: 100 },
      big: { type: "number", maximum: 9007199254740991 },
      details: { type: "object", propertyNames: { type: "string" }, additionalProperties: {} },
      keys: { type: "object", propertyNames: { type: "string", pattern: "^a" } },
      strict: { type: "object", additionalProperties: false },
      typed: { type: "object", additionalProperties: { type: "number" } },
    },
    required: ["count"],
    additionalProperties: {},
    anyOf: [{ required: ["count"] }, { required: ["limit"] }],
  };
  assert.deepEqual(compactJsonSchema(schema), {
    type: "object",
    properties: {
      count: { type: "integer" },
      limit: { type: "integer", minimum: 1, maximum: 100 },
      big: { type: "number", maximum: 9007199254740991 },
      details: { type: "object" },
      keys: { type: "object", propertyNames: { type: "string", pattern: "^a" } },
      strict: { type: "object", additionalProperties: false },
      typed: { type: "object", additionalProperties: { type: "number" } },
    },
    required: ["count"],
    anyOf: [{ required: ["count"] }, { required: ["limit"] }],
  });
});
