import fc from "fast-check";
import { EXTRA_KEY } from "../../subjects/mcp/probes.js";
import { PATTERN_CANDIDATES } from "../../subjects/mcp/sample.js";
import { beyond } from "../../subjects/mcp/limits.js";
import { isRecord, typesOf } from "../../subjects/mcp/sample.js";

// Argument objects for one tool, drawn near its (loosened) inputSchema: most properties get a
// value their schema likely accepts, a few get a value chosen to break it (a wrong type, "3" for
// an integer, a bound crossed by one, a length off by one, a near miss of an enum), a required
// property is sometimes left out and an unknown one sometimes added. What is drawn is only a
// candidate: the fuzzer sends it only when the reference proves it invalid.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Pair = [string, Json];

const MAX_DEPTH = 4;
const MAX_ITEMS = 4;
/** Properties of one object drawn for (required ones first): a left-out required one only makes a candidate more invalid. */
const MAX_PROPERTIES = 64;
/** Options of an anyOf drawn from. */
const MAX_OPTIONS = 64;

/** One of `values`, picked by index: no spread of a list the server sized. */
function oneOfList<T>(values: readonly T[]): fc.Arbitrary<T> {
  return fc.integer({ min: 0, max: values.length - 1 }).map((i) => values[i]!);
}

/** Candidates for a tool's arguments: an object near `schema` (an inputSchema brought into the subset). */
export function argumentsArb(schema: unknown): fc.Arbitrary<Json> {
  const root = isRecord(schema) ? schema : {};
  return fc.oneof({ arbitrary: objectArb(root, 0), weight: 9 }, { arbitrary: wild(root), weight: 1 });
}

/** A value near `schema`: mostly one it likely accepts, sometimes one picked to break it. */
function nearArb(schema: unknown, depth: number): fc.Arbitrary<Json> {
  const record = isRecord(schema) ? schema : {};
  return fc.oneof({ arbitrary: fittingArb(record, depth), weight: 4 }, { arbitrary: wild(record), weight: 1 });
}

function objectArb(schema: Record<string, unknown>, depth: number): fc.Arbitrary<Json> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === "string") : []);
  const names = [...new Set([...[...required].sort(), ...Object.keys(properties).sort()])].slice(0, MAX_PROPERTIES).sort();
  const entries = names.map((name) => {
    const sub = name in properties ? properties[name] : isRecord(schema.additionalProperties) ? schema.additionalProperties : {};
    // a required property is left out one time in ten, an optional one half the time
    const present = required.has(name) ? fc.integer({ min: 0, max: 9 }).map((n) => n !== 0) : fc.boolean();
    return fc.tuple(present, nearArb(sub, depth + 1)).map(([keep, value]): Pair | undefined => (keep ? [name, value] : undefined));
  });
  // an unknown property one time in ten
  const extra: fc.Arbitrary<Pair | undefined> = fc.tuple(fc.integer({ min: 0, max: 9 }), nearArb({}, MAX_DEPTH)).map(([n, value]) => (n === 0 ? [EXTRA_KEY, value] : undefined));
  return fc.tuple(extra, ...entries).map(([more, ...pairs]) => {
    const out: { [key: string]: Json } = {};
    for (const pair of [...pairs, more]) if (pair !== undefined) out[pair[0]] = pair[1];
    return out;
  });
}

/** A value `schema` likely accepts (valid by construction for the plain keywords; a pattern is tried, never trusted). */
function fittingArb(schema: Record<string, unknown>, depth: number): fc.Arbitrary<Json> {
  if ("const" in schema) return fc.constant(schema.const as Json);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return oneOfList(schema.enum as Json[]);
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0) return fc.oneof(...schema.anyOf.slice(0, MAX_OPTIONS).map((option) => nearArb(option, depth + 1)));
  const types = typesOf(schema);
  const type = types.length > 0 ? types : isRecord(schema.properties) ? ["object"] : [];
  if (type.length === 0) return depth >= MAX_DEPTH ? fc.constant(null) : anyJson(depth);
  return fc.oneof(...[...new Set(type)].slice(0, 7).map((t) => typeArb(t, schema, depth)));
}

function typeArb(type: string, schema: Record<string, unknown>, depth: number): fc.Arbitrary<Json> {
  const num = (name: string) => (typeof schema[name] === "number" && Number.isFinite(schema[name]) ? (schema[name] as number) : undefined);
  switch (type) {
    case "object":
      return depth >= MAX_DEPTH ? fc.constant({}) : objectArb(schema, depth);
    case "array": {
      const minItems = Math.min(whole(num("minItems")) ?? 0, MAX_ITEMS);
      const maxItems = Math.max(minItems, Math.min(whole(num("maxItems")) ?? MAX_ITEMS, MAX_ITEMS));
      return depth >= MAX_DEPTH ? fc.constant([]) : fc.array(nearArb(schema.items ?? {}, depth + 1), { minLength: minItems, maxLength: maxItems });
    }
    case "string": {
      const minLength = Math.min(whole(num("minLength")) ?? 0, 64);
      const maxLength = Math.max(minLength, Math.min(whole(num("maxLength")) ?? 12, 64));
      if (typeof schema.pattern === "string") return fc.constantFrom(...PATTERN_CANDIDATES).map((text) => text.padEnd(minLength, text.at(-1)));
      return fc.string({ minLength, maxLength, unit: fc.constantFrom("a", "b", "z", "0", "é", "💩", " ") });
    }
    case "integer":
    case "number": {
      const min = num("minimum") ?? -1_000;
      const max = num("maximum") ?? 1_000;
      const low = Math.ceil(Math.max(min, -1e6));
      const high = Math.floor(Math.min(max, 1e6));
      // bounds outside ±1e6 (or crossed) leave no whole number drawn near them: the bound itself
      if (min > max || low > high) return fc.constant(min);
      const whole = fc.integer({ min: low, max: high });
      return type === "integer" ? whole : fc.oneof(whole, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.constant(null);
  }
}

/** Values chosen to break `schema`: another type, a number's text, a fraction, a bound or a length crossed by one, an enum's near miss. */
function wild(schema: Record<string, unknown>): fc.Arbitrary<Json> {
  const values: Json[] = [null, true, "true", "3", "3.5", 3.5, 0, -1, "", [], {}, ["x", 1], { x: 1 }, "not a number", 1e21];
  const num = (name: string) => (typeof schema[name] === "number" && Number.isFinite(schema[name]) ? (schema[name] as number) : undefined);
  const [minimum, maximum, minLength, maxLength, maxItems] = ["minimum", "maximum", "minLength", "maxLength", "maxItems"].map(num);
  // a bound crossed by the nearest number that differs from it (minimum - 1 is the minimum at 2^53 and beyond)
  if (minimum !== undefined) values.push(beyond(minimum, -1) ?? null, minimum - 0.5, String(minimum));
  if (maximum !== undefined) values.push(beyond(maximum, 1) ?? null, maximum + 0.5, String(maximum));
  if (minLength !== undefined && minLength > 0 && minLength <= 1_000) values.push("a".repeat(minLength - 1));
  if (maxLength !== undefined && maxLength >= 0 && maxLength < 1_000) values.push("a".repeat(maxLength + 1), "💩".repeat(maxLength + 1));
  if (maxItems !== undefined && maxItems < 100) values.push(Array.from({ length: maxItems + 1 }, () => "x"));
  if (Array.isArray(schema.enum)) for (const value of schema.enum.slice(0, 8)) values.push(...nearMisses(value));
  if ("const" in schema) values.push(...nearMisses(schema.const));
  // a list of our own, at most 15 + 3 × 9 values
  return fc.constantFrom(...values);
}

/** A count usable as a length: a whole number, not negative; undefined otherwise. */
function whole(value: number | undefined): number | undefined {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Values a careless comparison takes for `value`: its text, its other case, its number, padded. */
function nearMisses(value: unknown): Json[] {
  if (typeof value === "string") return [value.toUpperCase() === value ? value.toLowerCase() : value.toUpperCase(), ` ${value}`, `${value} `].filter((v) => v !== value);
  if (typeof value === "number") return [String(value), value + 1];
  if (typeof value === "boolean") return [String(value), value ? 1 : 0];
  return [JSON.stringify(value ?? null)];
}

function anyJson(depth: number): fc.Arbitrary<Json> {
  return fc.jsonValue({ maxDepth: Math.max(0, 2 - depth) }) as fc.Arbitrary<Json>;
}
