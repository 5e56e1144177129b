// A value a schema of the subset likely accepts, built from its keywords: the base a probe breaks
// one rule of. It is never sent itself (only invalid arguments are); probes.ts uses it only once
// the reference proves it valid.

import { compile } from "../../schema/compile.js";
import { MAX_ITEMS, MAX_STRING } from "./limits.js";
import { textsMatching } from "./pattern-text.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A value `schema` likely accepts; undefined when none is found (and, when it is for a cap, `why` says so). */
export function sampleOf(schema: unknown, depth = 0, why: string[] = []): Json | undefined {
  if (depth > 8 || !isRecord(schema)) return depth > 8 ? undefined : {};
  if ("const" in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum.length > 0 ? (schema.enum[0] as Json) : undefined;
  if (Array.isArray(schema.anyOf)) {
    for (const option of schema.anyOf) {
      const value = sampleOf(option, depth + 1, why);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  const types = typesOf(schema);
  const type = types.find((t) => t !== "null") ?? types[0] ?? (isRecord(schema.properties) ? "object" : "string");
  switch (type) {
    case "object":
      return objectSample(schema, depth, why);
    case "array": {
      const min = count(schema.minItems, 0);
      if (min > MAX_ITEMS) return over(why, `minItems ${min} is over the ${MAX_ITEMS}-element cap`);
      const element = sampleOf(schema.items ?? {}, depth + 1, why);
      if (min > 0 && element === undefined) return undefined;
      return Array.from({ length: min }, () => element as Json);
    }
    case "string": {
      const min = Math.max(count(schema.minLength, 1), 1);
      if (min > MAX_STRING) return over(why, `minLength ${min} is over the ${MAX_STRING}-character cap`);
      const formatted = typeof schema.format === "string" ? FORMAT_SAMPLES[schema.format] : undefined;
      if (formatted !== undefined && typeof schema.pattern !== "string" && [...formatted].length >= min && (typeof schema.maxLength !== "number" || [...formatted].length <= schema.maxLength)) return formatted;
      if (typeof schema.pattern !== "string") return "a".repeat(min);
      return matchingText(schema, schema.pattern, min) ?? over(why, `no text matching its pattern ${JSON.stringify(schema.pattern).slice(0, 80)} was found`);
    }
    case "integer":
    case "number": {
      const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
      const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
      let value = min !== undefined ? Math.ceil(min) : max !== undefined ? Math.min(0, Math.floor(max)) : 1;
      if (max !== undefined && value > max) value = type === "number" ? max : Math.floor(max);
      return value;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return undefined;
  }
}

/**
 * A text of each common `format`. The subset drops `format` (it is judged by no one the same way),
 * but a server's own validator may check it: a base whose URL is "a" would be refused for that, and
 * hide the rule a probe breaks. Read from the tool's schema before it is loosened (probes.ts).
 */
const FORMAT_SAMPLES: Record<string, string> = {
  uri: "https://example.com/a",
  url: "https://example.com/a",
  "uri-reference": "https://example.com/a",
  iri: "https://example.com/a",
  email: "a@example.com",
  "idn-email": "a@example.com",
  uuid: "00000000-0000-4000-8000-000000000000",
  date: "2024-01-01",
  "date-time": "2024-01-01T00:00:00Z",
  time: "00:00:00Z",
  duration: "P1D",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  regex: "a",
  "json-pointer": "/a",
};

/** Texts tried for a string whose pattern refuses the first sample: common shapes of identifiers. */
export const PATTERN_CANDIDATES = ["a", "0", "1", "abc", "A", "a1", "a-b", "a_b", "a/b", "a.b", "2024-01-01", "a@b.co", "https://a.b", "12:00"];

/**
 * A text the string keywords of `schema` accept, its pattern included, at any depth of a base (so
 * that each probe breaks only its own rule): common shapes first, then texts built from the pattern.
 */
function matchingText(schema: Record<string, unknown>, pattern: string, min: number): string | undefined {
  const strings: Record<string, unknown> = { type: "string", pattern };
  if (typeof schema.minLength === "number") strings.minLength = schema.minLength;
  if (typeof schema.maxLength === "number") strings.maxLength = schema.maxLength;
  let accepts: (text: string) => boolean;
  try {
    const compiled = compile(JSON.stringify(strings));
    accepts = (text) => compiled.validate(text as never).length === 0;
  } catch {
    // a pattern the reference cannot read: the schema is not judged with it (subset.ts), any text serves
    return "a".repeat(min);
  }
  // then the common formats' texts (a UUID pattern with its version and variant digits), then texts built from the pattern
  const candidates = [...PATTERN_CANDIDATES.flatMap((text) => [text, text.padEnd(min, text.at(-1))]), ...new Set(Object.values(FORMAT_SAMPLES)), ...textsMatching(pattern, min)];
  return candidates.find(accepts);
}

function over(why: string[], reason: string): undefined {
  why.push(reason);
  return undefined;
}

function objectSample(schema: Record<string, unknown>, depth: number, why: string[]): Json | undefined {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : [];
  const out: Record<string, Json> = {};
  for (const name of required) {
    const value = sampleOf(name in properties ? properties[name] : isRecord(schema.additionalProperties) ? schema.additionalProperties : {}, depth + 1, why);
    if (value === undefined) return undefined;
    out[name] = value;
  }
  return out;
}

export function typesOf(schema: Record<string, unknown>): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  return [];
}

function count(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : fallback;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
