import type { Schema, ValidationError } from "../../schema/compile.js";
import { beyond, MAX_ENUM, MAX_ITEMS, MAX_PROBE_DEPTH, MAX_PROBES, MAX_STRING, withinCap } from "./limits.js";
import { holdsObject, insideOf, pathLabel, setAt, valueAt, type Path } from "./paths.js";
import { isRecord, sampleOf, typesOf } from "./sample.js";
import { judgeable } from "./subset.js";

// Probes: invalid arguments for each tool, generated from its own inputSchema. Each breaks one
// rule of the schema on a base the reference proves valid, and is sent only when the reference,
// on the schema brought into the subset (subset.ts), finds exactly one error, where the rule was
// broken: a probe it cannot prove invalid that way is never sent. Objects nested in the arguments
// (a property's, an array's first element's) are probed the same way, down to MAX_PROBE_DEPTH
// levels, each probe the whole arguments with one rule broken at one place (`params.name`).
// Deterministic: the same schema gives the same probes, ids and arguments.

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
  /** Why the tool could not be probed beyond non-object arguments (no valid base, or its schema not judged), when it could not. */
  unprobed?: string;
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
  const cut: string[] = [];
  const add: Add = (probe, args, rule, pitfalls, why, at = []) => {
    if (probes.some((p) => p.probe === probe)) return false;
    // nothing is judged, so nothing is sent
    if (schema === undefined) return false;
    if (probes.length >= MAX_PROBES) {
      if (!cut.some((line) => line.startsWith(CAPPED))) cut.push(`${CAPPED} (the cap): the rest not probed`);
      return false;
    }
    const errors = schema.validate(args as never);
    // never sent unless proven invalid; and on a valid base, a probe breaks one rule: one error, where it was broken
    if (errors.length !== 1 || !samePath(errors[0]!.segments, at)) return false;
    if (rule.startsWith("type") && errors[0]!.expectedType === undefined) return false;
    probes.push({ id: `mcp/${tool}/${probe}`, tool, probe, arguments: args, rule, pitfalls, why, names: namesOf(errors), errors: errors.map(String) });
    return true;
  };
  add("non-object/array", ["x"], "type/object", ["s10"], "the arguments of a call are an object: an array is refused before the tool runs");
  add("non-object/string", "x", "type/object", ["s10"], "the arguments of a call are an object: a string is refused before the tool runs");
  const root = isRecord(judged.value) ? judged.value : {};
  let unprobed: string | undefined;
  if (schema && !judged.unjudged) {
    const why: string[] = [];
    // a base from the schema as the server wrote it first (its formats kept: its validator may check them), when the loosened one accepts it
    const asWritten = isRecord(inputSchema) ? sampleOf(inputSchema) : undefined;
    const base = asWritten !== undefined && isRecord(asWritten) && schema.validate(asWritten as never).length === 0 ? asWritten : sampleOf(root, 0, why);
    // a base the reference does not prove valid would hide a probe's own fault behind its own
    const wrong = isRecord(base) ? schema.validate(base as never) : [];
    const valid = (args: Json) => schema.validate(args as never).length === 0;
    if (isRecord(base) && wrong.length === 0) objectProbes({ add, cut, valid }, root, base, [], 0);
    else {
      unprobed = `no valid base: ${wrong.length ? `${wrong[0]}${wrong.length > 1 ? ` (and ${wrong.length - 1} more)` : ""}` : why.length ? why.join("; ") : "no value its schema accepts was found"}`;
      cut.push(`could not be probed beyond non-object arguments: ${unprobed}`);
    }
  } else unprobed = `its schema could not be judged${judged.unjudged === undefined ? "" : `: ${judged.unjudged}`}`;
  return { tool, probes, dropped: judged.dropped, ...(judged.unjudged ? { unjudged: judged.unjudged } : {}), ...(unprobed !== undefined ? { unprobed } : {}), cut };
}

const CAPPED = `${MAX_PROBES} probes made`;

/** Adds a probe when the reference proves it breaks one rule, where it was broken: whether it did. */
type Add = (probe: string, args: Json, rule: string, pitfalls: string[], why: string, at?: Path) => boolean;

/** What probing one object of the arguments shares with the rest: where probes go, where cuts are said, the whole schema's verdict on a base. */
interface Probing {
  add: Add;
  cut: string[];
  valid: (args: Json) => boolean;
}

function samePath(segments: Path, at: Path): boolean {
  return segments.length === at.length && segments.every((segment, i) => segment === at[i]);
}

/**
 * The probes of the object at `at` in `root` (a base the reference proved valid) under `schema`,
 * then of the objects nested in it (a property's, an array's first element's), down to
 * MAX_PROBE_DEPTH: each probe is the whole arguments with one rule broken at one place.
 */
function objectProbes(probing: Probing, schema: Record<string, unknown>, root: Json, at: Path, depth: number): void {
  const { add, cut } = probing;
  const base = valueAt(root, at) as { [key: string]: Json };
  const here = (value: Json) => setAt(root, at, value);
  const where = (name: string) => pathLabel([...at, name]);
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === "string") : [];
  for (const name of [...required].sort()) {
    const { [name]: _gone, ...rest } = base;
    add(`missing-required/${where(name)}`, here(rest), "required", ["s06", "s10"], `"${where(name)}" is required: a call without it is refused before the tool runs`, at);
  }
  if (schema.additionalProperties === false) {
    add(at.length === 0 ? "extra-property" : `extra-property/${pathLabel(at)}`, here({ ...base, [EXTRA_KEY]: "x" }), "additionalProperties", ["s07", "s10"], `additionalProperties is false${at.length === 0 ? "" : ` in "${pathLabel(at)}"`}: a property outside properties ("${EXTRA_KEY}") is refused, not ignored`, at);
  }
  for (const name of Object.keys(properties).sort()) {
    const sub = properties[name];
    if (!isRecord(sub)) continue;
    const path = [...at, name];
    const label = where(name);
    const put = (value: Json) => setAt(root, path, value);
    for (const [kind, value] of wrongTypes(sub)) add(`wrong-type/${label}/${kind}`, put(value), "type", ["s10"], `"${label}" is ${describe(sub)}: ${kind === "number" ? "a number" : `a${kind === "array" || kind === "object" ? "n" : ""} ${kind}`} is refused`, path);
    const types = typesOf(sub);
    if (types.includes("integer") && !types.includes("number")) {
      // a value that is right but for its type, and one right but for its fraction
      const whole = inRange(sub, 3, 0);
      const part = inRange(sub, 3, 0.5) + 0.5;
      if (!types.includes("string")) add(`integer-as-string/${label}`, put(String(whole)), "type/integer", ["s01", "s10"], `"${label}" is an integer: the string "${whole}" is not one (no coercion)`, path);
      add(`integer-fraction/${label}`, put(part), "type/integer", ["s10"], `"${label}" is an integer: ${part} has a fractional part`, path);
    }
    boundProbes(label, path, sub, put, add, cut);
    if (Array.isArray(sub.enum) && sub.enum.length > MAX_ENUM) cut.push(`enum/${label}: not probed, the enum has ${sub.enum.length} values (over the ${MAX_ENUM} cap)`);
    else if (Array.isArray(sub.enum) && sub.enum.length > 0) add(`enum/${label}`, put(outside(sub.enum)), "enum", ["s10"], `"${label}" is one of ${JSON.stringify(sub.enum).slice(0, 80)}: another value is refused`, path);
    if ("const" in sub) add(`const/${label}`, put(outside([sub.const])), "const", ["s10"], `"${label}" must be ${JSON.stringify(sub.const).slice(0, 80)}: another value is refused`, path);
    if (typesOf(sub).includes("array") && isRecord(sub.items)) {
      const element = sampleOf(sub.items);
      const wrong = wrongTypes(sub.items)[0];
      const fewest = sub.minItems === undefined ? 0 : withinCap(sub.minItems, MAX_ITEMS);
      if (fewest === undefined) cut.push(`array-element/${label}: not probed, minItems ${String(sub.minItems)} is over the ${MAX_ITEMS}-element cap`);
      else if (element !== undefined && wrong) {
        const length = Math.max(fewest, 2);
        const list = Array.from({ length }, () => element);
        list[length - 1] = wrong[1];
        add(`array-element/${label}`, put(list), "items", ["s17", "s10"], `every element of "${label}" is ${describe(sub.items)}: element ${length - 1} is not, and the refusal should say which`, [...path, length - 1]);
      }
    }
    nestedProbes(probing, sub, root, path, depth);
  }
}

/**
 * The probes inside a property's own object, or inside the first element of its array of objects,
 * on a base that holds one (the property's value in the base, else a sample of it, proven valid).
 */
function nestedProbes(probing: Probing, sub: Record<string, unknown>, root: Json, path: Path, depth: number): void {
  if (!holdsObject(sub)) return;
  const label = pathLabel(path);
  if (depth + 1 > MAX_PROBE_DEPTH) return void probing.cut.push(`${label}: not probed inside, it is nested more than ${MAX_PROBE_DEPTH} levels deep (the cap)`);
  const inside = insideOf(sub, root, path, probing.valid);
  if (inside === undefined) probing.cut.push(`${label}: not probed inside, no valid object or element for it was found`);
  else objectProbes(probing, inside.schema, inside.base, inside.at, depth + 1);
}

function boundProbes(name: string, path: Path, sub: Record<string, unknown>, put: (value: Json) => Json, add: Add, cut: string[]): void {
  const types = typesOf(sub);
  const numeric = types.includes("integer") || types.includes("number");
  // a bound crossed by one, or by the nearest double that differs when one is too small a step
  const below = numeric && typeof sub.minimum === "number" ? beyond(sub.minimum, -1) : undefined;
  const above = numeric && typeof sub.maximum === "number" ? beyond(sub.maximum, 1) : undefined;
  if (below !== undefined) add(`below-minimum/${name}`, put(below), "minimum", ["s10"], `"${name}" has minimum ${sub.minimum}: ${below} is refused`, path);
  else if (numeric && typeof sub.minimum === "number") cut.push(`below-minimum/${name}: not probed, no finite number is below ${sub.minimum}`);
  if (above !== undefined) add(`above-maximum/${name}`, put(above), "maximum", ["s10"], `"${name}" has maximum ${sub.maximum}: ${above} is refused`, path);
  else if (numeric && typeof sub.maximum === "number") cut.push(`above-maximum/${name}: not probed, no finite number is above ${sub.maximum}`);
  const sized = (probe: string, keyword: string, bound: number, needed: number, unit: "characters" | "elements", make: (n: number) => Json) => {
    const cap = unit === "characters" ? MAX_STRING : MAX_ITEMS;
    const n = withinCap(needed, cap);
    if (n !== undefined) add(`${probe}/${name}`, put(make(n)), keyword, ["s10"], `"${name}" has ${keyword} ${bound}: ${n} ${unit} are refused`, path);
    else if (needed > cap) cut.push(`${probe}/${name}: not probed, ${keyword} ${bound} would need ${unit === "characters" ? `more than ${MAX_STRING} characters` : `more than ${MAX_ITEMS} elements`} (the cap)`);
  };
  const strings = types.includes("string");
  const arrays = types.includes("array");
  if (strings && typeof sub.minLength === "number" && sub.minLength > 0) sized("too-short", "minLength", sub.minLength, sub.minLength - 1, "characters", (n) => "a".repeat(n));
  if (strings && typeof sub.maxLength === "number") sized("too-long", "maxLength", sub.maxLength, sub.maxLength + 1, "characters", (n) => "a".repeat(n));
  // a text its pattern does not match, of a length its bounds allow: the first such candidate the reference proves breaks the pattern alone
  if (strings && typeof sub.pattern === "string") {
    const fit = (text: string) => {
      const min = typeof sub.minLength === "number" ? sub.minLength : 0;
      const max = typeof sub.maxLength === "number" ? sub.maxLength : Infinity;
      const long = [...text].length < min ? text + "!".repeat(Math.min(min, MAX_STRING) - [...text].length) : text;
      return [...long].slice(0, max).join("");
    };
    const why = `"${name}" has pattern ${JSON.stringify(sub.pattern).slice(0, 80)}: a text it does not match is refused`;
    if (!PATTERN_BREAKERS.some((text) => add(`pattern/${name}`, put(fit(text)), "pattern", ["s10"], why, path))) cut.push(`pattern/${name}: not probed, no text was found that breaks its pattern alone`);
  }
  const element = arrays ? sampleOf(sub.items ?? {}) : undefined;
  if (element !== undefined && typeof sub.minItems === "number" && sub.minItems > 0) sized("too-few-items", "minItems", sub.minItems, sub.minItems - 1, "elements", (n) => Array.from({ length: n }, () => element));
  if (element !== undefined && typeof sub.maxItems === "number") sized("too-many-items", "maxItems", sub.maxItems, sub.maxItems + 1, "elements", (n) => Array.from({ length: n }, () => element));
}

/** Texts tried, in order, against a pattern: one a pattern rarely matches, then shorter and odder ones. */
const PATTERN_BREAKERS = ["tool-conformance-not-matching", "!", " ", "0", "a", "", "A_1 !"];

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
    // a property missing or not allowed is the one the message quotes, at any depth (`$.params: unexpected property "x"`)
    const property = /^(?:missing required|unexpected) property ("(?:[^"\\]|\\.)*")$/.exec(error.message)?.[1];
    if (property !== undefined) out.push([JSON.parse(property) as string]);
    else if (typeof last === "number") {
      const owner = [...segments].reverse().find((s): s is string => typeof s === "string");
      out.push(owner !== undefined ? [owner, String(last)] : [String(last)]);
    } else if (typeof last === "string") out.push([last]);
    else out.push(["object"]);
  }
  return out;
}

export type { Schema };
