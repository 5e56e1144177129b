import { compile, type Schema, type ValidationError } from "../../schema/compile.js";
import { beyond, MAX_ENUM, MAX_ITEMS, MAX_STRING, withinCap } from "./limits.js";
import { textsMatching } from "./pattern-text.js";
import { isRecord, sampleOf, typesOf } from "./sample.js";
import { judgeable } from "./subset.js";

// Probes: invalid arguments for each tool, generated from its own inputSchema. Each breaks one
// rule of the schema on a base the reference proves valid, and is sent only when the reference,
// on the schema brought into the subset (subset.ts), finds exactly one error, where the rule was
// broken: a probe it cannot prove invalid that way is never sent. Deterministic: the same schema gives the same probes, ids and arguments.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface McpProbe {
  /** `mcp/TOOL/PROBE`: stable per server and tool, so a baseline compares run with run. */
  id: string;
  tool: string;
  /** `missing-required/city` */
  probe: string;
  /** The arguments sent. */
  arguments: Json;
  /** The rule of the subset it breaks. */
  rule: string;
  /** The seed's pitfalls a server that runs on it shows. */
  pitfalls: string[];
  why: string;
  /** What a refusal must mention to name what is wrong: any one of these (a property, an element's index with its array). */
  names: string[][];
  /** The reference's errors on it: the proof it is invalid. */
  errors: string[];
}

export interface ToolProbes {
  tool: string;
  probes: McpProbe[];
  /** Keywords outside the subset, dropped before judging (the schema was only loosened). */
  dropped: string[];
  /** Why the schema could not be judged, when it could not (only non-object arguments are probed). */
  unjudged?: string;
  /** Probes not made because a cap (limits.ts) was hit, or no base could be built: each said why. */
  cut: string[];
}

/** The key added where additionalProperties is false: no real tool has it. */
export const EXTRA_KEY = "tool_conformance_extra";

export function probesFor(tool: string, inputSchema: unknown): ToolProbes {
  // a tool without an inputSchema is read as the seed reads one: {"type":"object"}
  const judged = judgeable(inputSchema === undefined ? { type: "object" } : inputSchema);
  const schema = judged.schema;
  const probes: McpProbe[] = [];
  const add = (probe: string, args: Json, rule: string, pitfalls: string[], why: string, at: readonly (string | number)[] = []) => {
    if (probes.some((p) => p.probe === probe)) return;
    // nothing is judged, so nothing is sent
    if (schema === undefined) return;
    const errors = schema.validate(args as never);
    // never sent unless proven invalid; and on a valid base, a probe breaks one rule: one error, where it was broken
    if (errors.length !== 1 || !samePath(errors[0]!.segments, at)) return;
    if (rule.startsWith("type") && errors[0]!.expectedType === undefined) return;
    probes.push({ id: `mcp/${tool}/${probe}`, tool, probe, arguments: args, rule, pitfalls, why, names: namesOf(errors), errors: errors.map(String) });
  };
  add("non-object/array", ["x"], "type/object", ["s10"], "the arguments of a call are an object: an array is refused before the tool runs");
  add("non-object/string", "x", "type/object", ["s10"], "the arguments of a call are an object: a string is refused before the tool runs");
  const cut: string[] = [];
  const root = isRecord(judged.value) ? judged.value : {};
  if (judged.schema && !judged.unjudged) {
    const why: string[] = [];
    const base = repaired(sampleOf(root, 0, why), root);
    // a base the reference does not prove valid would hide a probe's own fault behind its own
    const wrong = isRecord(base) ? judged.schema.validate(base as never) : [];
    if (isRecord(base) && wrong.length === 0) objectProbes(root, base, add, cut);
    else cut.push(`could not be probed beyond non-object arguments: no valid base: ${wrong.length ? `${wrong[0]}${wrong.length > 1 ? ` (and ${wrong.length - 1} more)` : ""}` : why.length ? why.join("; ") : "no value its schema accepts was found"}`);
  }
  return { tool, probes, dropped: judged.dropped, ...(judged.unjudged ? { unjudged: judged.unjudged } : {}), cut };
}

type Add = (probe: string, args: Json, rule: string, pitfalls: string[], why: string, at?: readonly (string | number)[]) => void;

function samePath(segments: readonly (string | number)[], at: readonly (string | number)[]): boolean {
  return segments.length === at.length && segments.every((segment, i) => segment === at[i]);
}

function objectProbes(schema: Record<string, unknown>, base: { [key: string]: Json }, add: Add, cut: string[]): void {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === "string") : [];
  for (const name of [...required].sort()) {
    const { [name]: _gone, ...rest } = base;
    add(`missing-required/${name}`, rest, "required", ["s06", "s10"], `"${name}" is required: a call without it is refused before the tool runs`);
  }
  if (schema.additionalProperties === false) {
    add("extra-property", { ...base, [EXTRA_KEY]: "x" }, "additionalProperties", ["s07", "s10"], `additionalProperties is false: a property outside properties ("${EXTRA_KEY}") is refused, not ignored`);
  }
  for (const name of Object.keys(properties).sort()) {
    const sub = properties[name];
    if (!isRecord(sub)) continue;
    const put = (value: Json) => ({ ...base, [name]: value });
    for (const [label, value] of wrongTypes(sub)) add(`wrong-type/${name}/${label}`, put(value), "type", ["s10"], `"${name}" is ${describe(sub)}: ${label === "number" ? "a number" : `a${label === "array" || label === "object" ? "n" : ""} ${label}`} is refused`, [name]);
    const types = typesOf(sub);
    if (types.includes("integer") && !types.includes("number")) {
      // a value that is right but for its type, and one right but for its fraction
      const whole = inRange(sub, 3, 0);
      const part = inRange(sub, 3, 0.5) + 0.5;
      if (!types.includes("string")) add(`integer-as-string/${name}`, put(String(whole)), "type/integer", ["s01", "s10"], `"${name}" is an integer: the string "${whole}" is not one (no coercion)`, [name]);
      add(`integer-fraction/${name}`, put(part), "type/integer", ["s10"], `"${name}" is an integer: ${part} has a fractional part`, [name]);
    }
    boundProbes(name, sub, put, add, cut);
    if (Array.isArray(sub.enum) && sub.enum.length > MAX_ENUM) cut.push(`enum/${name}: not probed, the enum has ${sub.enum.length} values (over the ${MAX_ENUM} cap)`);
    else if (Array.isArray(sub.enum) && sub.enum.length > 0) add(`enum/${name}`, put(outside(sub.enum)), "enum", ["s10"], `"${name}" is one of ${JSON.stringify(sub.enum).slice(0, 80)}: another value is refused`, [name]);
    if ("const" in sub) add(`const/${name}`, put(outside([sub.const])), "const", ["s10"], `"${name}" must be ${JSON.stringify(sub.const).slice(0, 80)}: another value is refused`, [name]);
    if (typesOf(sub).includes("array") && isRecord(sub.items)) {
      const element = sampleOf(sub.items);
      const wrong = wrongTypes(sub.items)[0];
      const fewest = sub.minItems === undefined ? 0 : withinCap(sub.minItems, MAX_ITEMS);
      if (fewest === undefined) cut.push(`array-element/${name}: not probed, minItems ${String(sub.minItems)} is over the ${MAX_ITEMS}-element cap`);
      else if (element !== undefined && wrong) {
        const length = Math.max(fewest, 2);
        const list = Array.from({ length }, () => element);
        list[length - 1] = wrong[1];
        add(`array-element/${name}`, put(list), "items", ["s17", "s10"], `every element of "${name}" is ${describe(sub.items)}: element ${length - 1} is not, and the refusal should say which`, [name, length - 1]);
      }
    }
  }
}

function boundProbes(name: string, sub: Record<string, unknown>, put: (value: Json) => Json, add: Add, cut: string[]): void {
  const types = typesOf(sub);
  const numeric = types.includes("integer") || types.includes("number");
  // a bound crossed by one, or by the nearest double that differs when one is too small a step
  const below = numeric && typeof sub.minimum === "number" ? beyond(sub.minimum, -1) : undefined;
  const above = numeric && typeof sub.maximum === "number" ? beyond(sub.maximum, 1) : undefined;
  if (below !== undefined) add(`below-minimum/${name}`, put(below), "minimum", ["s10"], `"${name}" has minimum ${sub.minimum}: ${below} is refused`, [name]);
  else if (numeric && typeof sub.minimum === "number") cut.push(`below-minimum/${name}: not probed, no finite number is below ${sub.minimum}`);
  if (above !== undefined) add(`above-maximum/${name}`, put(above), "maximum", ["s10"], `"${name}" has maximum ${sub.maximum}: ${above} is refused`, [name]);
  else if (numeric && typeof sub.maximum === "number") cut.push(`above-maximum/${name}: not probed, no finite number is above ${sub.maximum}`);
  const sized = (probe: string, keyword: string, bound: number, needed: number, unit: "characters" | "elements", make: (n: number) => Json) => {
    const cap = unit === "characters" ? MAX_STRING : MAX_ITEMS;
    const n = withinCap(needed, cap);
    if (n !== undefined) add(`${probe}/${name}`, put(make(n)), keyword, ["s10"], `"${name}" has ${keyword} ${bound}: ${n} ${unit} are refused`, [name]);
    else if (needed > cap) cut.push(`${probe}/${name}: not probed, ${keyword} ${bound} would need ${unit === "characters" ? `more than ${MAX_STRING} characters` : `more than ${MAX_ITEMS} elements`} (the cap)`);
  };
  const strings = types.includes("string");
  const arrays = types.includes("array");
  if (strings && typeof sub.minLength === "number" && sub.minLength > 0) sized("too-short", "minLength", sub.minLength, sub.minLength - 1, "characters", (n) => "a".repeat(n));
  if (strings && typeof sub.maxLength === "number") sized("too-long", "maxLength", sub.maxLength, sub.maxLength + 1, "characters", (n) => "a".repeat(n));
  const element = arrays ? sampleOf(sub.items ?? {}) : undefined;
  if (element !== undefined && typeof sub.minItems === "number" && sub.minItems > 0) sized("too-few-items", "minItems", sub.minItems, sub.minItems - 1, "elements", (n) => Array.from({ length: n }, () => element));
  if (element !== undefined && typeof sub.maxItems === "number") sized("too-many-items", "maxItems", sub.maxItems, sub.maxItems + 1, "elements", (n) => Array.from({ length: n }, () => element));
}

/** Texts tried for a string property whose pattern refuses the first sample: common shapes of identifiers. */
export const PATTERN_CANDIDATES = ["a", "0", "1", "abc", "A", "a1", "a-b", "a_b", "a/b", "a.b", "2024-01-01", "a@b.co", "https://a.b", "12:00"];

/**
 * The base with each property the sample got wrong (a pattern it does not match) given a value its
 * schema accepts, when one of the candidates is: so that each probe breaks only its own rule.
 */
export function repaired(base: Json | undefined, root: Record<string, unknown>): Json | undefined {
  if (!isRecord(base) || !isRecord(root.properties)) return base;
  const properties = root.properties;
  const out: { [key: string]: Json } = { ...(base as { [key: string]: Json }) };
  for (const [name, value] of Object.entries(out)) {
    const sub = properties[name];
    if (!isRecord(sub) || typeof sub.pattern !== "string") continue;
    let schema: Schema;
    try {
      schema = compile(JSON.stringify(sub));
    } catch {
      continue;
    }
    if (schema.validate(value as never).length === 0) continue;
    const min = withinCap(sub.minLength ?? 0, MAX_STRING);
    if (min === undefined) continue;
    // common shapes first, then texts built from the pattern itself
    const found = [...PATTERN_CANDIDATES.flatMap((text) => [text, text.padEnd(min, text.at(-1))]), ...textsMatching(sub.pattern, min)].find((text) => schema.validate(text as never).length === 0);
    if (found !== undefined) out[name] = found;
  }
  return out;
}

/** One value of each JSON type the schema's `type` does not allow (none when it names no type). */
function wrongTypes(schema: Record<string, unknown>): [string, Json][] {
  const types = typesOf(schema);
  if (types.length === 0) return [];
  const candidates: [string, Json, string[]][] = [
    ["string", "not a number", ["string"]],
    ["number", 12.5, ["number"]],
    ["boolean", true, ["boolean"]],
    ["object", { x: 1 }, ["object"]],
    ["array", ["x"], ["array"]],
  ];
  return candidates.filter(([, , own]) => !own.some((t) => types.includes(t))).map(([label, value]) => [label, label === "string" && types.includes("boolean") ? "true" : value]);
}

/** A whole number near `preferred` such that it, plus `room`, is inside the schema's bounds (when any is). */
export function inRange(schema: Record<string, unknown>, preferred: number, room: number): number {
  let value = preferred;
  if (typeof schema.minimum === "number" && value < schema.minimum) value = Math.ceil(schema.minimum);
  if (typeof schema.maximum === "number" && value + room > schema.maximum) value = Math.floor(schema.maximum - room);
  return value;
}

/** A value of the first value's type that none of `values` is (each search ends: n values leave one of n + 1 candidates free). */
export function outside(values: readonly unknown[]): Json {
  const first = values[0];
  const listed = new Set(values);
  if (typeof first === "number") {
    let top = first;
    for (const value of values) if (typeof value === "number" && value > top) top = value;
    // one above the largest, when that is a number that differs (2^53 + 1 is 2^53)
    const next = beyond(top, 1);
    if (next !== undefined && Number.isSafeInteger(next) && !listed.has(next)) return next;
    for (let n = 0; ; n++) if (!listed.has(n)) return n;
  }
  if (typeof first === "boolean") return listed.has(!first) ? "not-a-boolean" : !first;
  const text = "tool-conformance-not-listed";
  if (!listed.has(text)) return text;
  for (let n = 1; ; n++) if (!listed.has(`${text}-${n}`)) return `${text}-${n}`;
}

function describe(schema: Record<string, unknown>): string {
  const types = typesOf(schema);
  return types.length ? `of type ${types.join(" or ")}` : "constrained";
}

/**
 * What a refusal should mention, from the reference's errors: the property each is about (its
 * path's last name, or the name an error at `$` quotes), and for an element its index too.
 */
export function namesOf(errors: readonly ValidationError[]): string[][] {
  const out: string[][] = [];
  for (const error of errors) {
    const segments = error.segments;
    const last = segments[segments.length - 1];
    if (typeof last === "number") {
      const owner = [...segments].reverse().find((s): s is string => typeof s === "string");
      out.push(owner !== undefined ? [owner, String(last)] : [String(last)]);
    } else if (typeof last === "string") out.push([last]);
    else {
      const quoted = /"([^"]+)"/.exec(error.message)?.[1];
      out.push(quoted !== undefined ? [quoted] : ["object"]);
    }
  }
  return out;
}

export type { Schema };
