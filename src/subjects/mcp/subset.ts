import { compile, SchemaError, type Schema } from "../../schema/compile.js";
import { ANNOTATIONS, KEYWORDS } from "../../schema/keywords/index.js";
import { constIgnored, itemsAfterPrefix, readingsOf, refHidesSiblings, requiredListIgnored, union, type Reading } from "./dialect.js";
import { deeperThan, MAX_SCHEMA_DEPTH } from "./limits.js";

// A server's inputSchema brought into the subset the reference can judge, only ever by loosening
// it: a keyword outside the subset is dropped (a constraint less accepts more), and a value that
// is proven invalid under the loosened schema is invalid under the original too. The keywords
// dropped are listed, so a report says what was not judged. Loosened as every dialect the schema
// may be read in reads it (dialect.ts): a keyword one of them ignores, or reads more loosely, goes.

/** Keywords whose subschemas are schemas, by how they hold them. */
const SCHEMA_MAP = new Set(["properties"]);
const SCHEMA_LIST = new Set(["anyOf"]);
const SCHEMA_ONE = new Set(["items", "additionalProperties"]);

/** Keywords next to which `additionalProperties: false` means more than the subset sees: it would tighten, so it goes too. */
const WIDENS_PROPERTIES = ["patternProperties", "unevaluatedProperties", "dependentSchemas", "allOf", "oneOf", "$ref", "if", "then", "else", "not"];

export interface Judged {
  /** The loosened schema, compiled by the reference; when it cannot be (see unjudged), only its root's type, or undefined when even that is not judged. */
  schema?: Schema;
  /** The loosened schema as a value. */
  value: unknown;
  /** `format at $.properties.email`: each keyword dropped, where. */
  dropped: string[];
  /** Why the schema could not be judged at all. */
  unjudged?: string;
}

export function judgeable(inputSchema: unknown): Judged {
  const dropped: string[] = [];
  const readings = readingsOf(isRecord(inputSchema) ? inputSchema.$schema : undefined);
  if (deeperThan(inputSchema, MAX_SCHEMA_DEPTH)) return { ...rootOnly(inputSchema, readings), dropped, unjudged: `its inputSchema nests deeper than ${MAX_SCHEMA_DEPTH} levels (the cap), so only the type of its root was judged` };
  const value = loosen(inputSchema, "$", dropped, readings);
  try {
    return { schema: compile(JSON.stringify(value)), value, dropped };
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    // a value the subset refuses (a pattern RE2 cannot read): patterns go, the rest is judged
    const again = stripPatterns(value, "$", dropped);
    try {
      return { schema: compile(JSON.stringify(again)), value: again, dropped };
    } catch (second) {
      if (!(second instanceof SchemaError)) throw second;
      return { ...rootOnly(inputSchema, readings), dropped, unjudged: second.message };
    }
  }
}

/** A schema too deep to walk: only its root's `type`, when every reading judges it (undefined schema otherwise: nothing is sent). */
function rootOnly(inputSchema: unknown, readings: ReadonlySet<Reading>): { schema?: Schema; value: unknown } {
  if (!isRecord(inputSchema) || !validTypes(inputSchema.type) || ("$ref" in inputSchema && refHidesSiblings(readings))) return { value: {} };
  const names = new Set(typeof inputSchema.type === "string" ? [inputSchema.type] : (inputSchema.type as string[]));
  if (inputSchema.nullable === true) names.add("null");
  const value = { type: [...names] };
  return { schema: compile(JSON.stringify(value)), value };
}

function loosen(schema: unknown, at: string, dropped: string[], outer: ReadonlySet<Reading>): unknown {
  if (typeof schema === "boolean") return schema ? {} : schema;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const record = schema as Record<string, unknown>;
  // a subschema naming a dialect of its own may be read in it, or in the outer one
  const readings = "$schema" in record ? union(outer, readingsOf(record.$schema)) : outer;
  if ("$ref" in record && refHidesSiblings(readings)) {
    const siblings = Object.keys(record).filter((name) => name !== "$ref" && !ANNOTATIONS.has(name));
    dropped.push(siblings.length > 0 ? `$ref at ${at}, and beside it ${siblings.join(", ")} (draft-07 and earlier ignore the siblings of $ref)` : `$ref at ${at}`);
    return {};
  }
  const out: Record<string, unknown> = {};
  const widened = WIDENS_PROPERTIES.some((name) => name in record);
  for (const [name, keywordValue] of Object.entries(record)) {
    if (ANNOTATIONS.has(name)) {
      // annotations are never judged; only $schema is kept, to say the dialect
      if (name === "$schema") out[name] = keywordValue;
      continue;
    }
    if (name === "const" && constIgnored(readings)) {
      dropped.push(`const at ${at} (draft-04 and earlier ignore it)`);
      continue;
    }
    if (name === "required" && (!Array.isArray(keywordValue) || requiredListIgnored(readings))) {
      dropped.push(`required at ${at} (${Array.isArray(keywordValue) ? "draft-03 ignores a list" : "not a list: draft-03's form"})`);
      continue;
    }
    if (name === "items" && "prefixItems" in record && itemsAfterPrefix(readings)) {
      dropped.push(`items at ${at} (beside prefixItems, 2020-12 applies it only after the prefix)`);
      continue;
    }
    if (!KEYWORDS.has(name)) {
      dropped.push(`${name} at ${at}`);
      continue;
    }
    if (name === "additionalProperties" && keywordValue === false && widened) {
      dropped.push(`additionalProperties at ${at} (beside ${WIDENS_PROPERTIES.filter((w) => w in record).join(", ")})`);
      continue;
    }
    if (name === "items" && Array.isArray(keywordValue)) {
      dropped.push(`items (a list) at ${at}`);
      continue;
    }
    if (name === "type" && !validTypes(keywordValue)) {
      dropped.push(`type ${JSON.stringify(keywordValue).slice(0, 80)} at ${at}`);
      continue;
    }
    if (name === "type") {
      // each name once; `nullable: true` (OpenAPI, read by some validators) lets null in too
      const names = new Set(typeof keywordValue === "string" ? [keywordValue] : (keywordValue as string[]));
      if (record.nullable === true) names.add("null");
      out[name] = names.size === 1 ? [...names][0] : [...names];
      continue;
    }
    if (SCHEMA_MAP.has(name) && isRecord(keywordValue)) out[name] = Object.fromEntries(Object.entries(keywordValue).map(([key, sub]) => [key, loosen(sub, `${at}.${name}.${key}`, dropped, readings)]));
    else if (SCHEMA_LIST.has(name) && Array.isArray(keywordValue)) out[name] = keywordValue.map((sub, i) => loosen(sub, `${at}.${name}[${i}]`, dropped, readings));
    else if (SCHEMA_ONE.has(name) && (isRecord(keywordValue) || typeof keywordValue === "boolean")) out[name] = typeof keywordValue === "boolean" ? keywordValue : loosen(keywordValue, `${at}.${name}`, dropped, readings);
    else out[name] = keywordValue;
  }
  return out;
}

const TYPE_NAMES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);

function validTypes(value: unknown): boolean {
  const names = typeof value === "string" ? [value] : value;
  return Array.isArray(names) && names.length > 0 && names.every((name) => typeof name === "string" && TYPE_NAMES.has(name));
}

function stripPatterns(schema: unknown, at: string, dropped: string[]): unknown {
  if (Array.isArray(schema)) return schema.map((item, i) => stripPatterns(item, `${at}[${i}]`, dropped));
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(schema)) {
    if (name === "pattern") {
      dropped.push(`pattern at ${at} (outside what RE2 reads)`);
      continue;
    }
    if (name === "properties" && isRecord(value)) out[name] = Object.fromEntries(Object.entries(value).map(([key, sub]) => [key, stripPatterns(sub, `${at}.properties.${key}`, dropped)]));
    else out[name] = name === "enum" || name === "const" || ANNOTATIONS.has(name) ? value : stripPatterns(value, `${at}.${name}`, dropped);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
