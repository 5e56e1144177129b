import type { ToolRow } from "../corpus/rows.js";
import { render, type Tree } from "./model.js";
import { argumentsText, validateProbeOf, type CallArguments, type Probe, type ProbeStep } from "./probes.js";

// After fast-check's shrinking, a greedy pass over the case itself: drop a keyword, a property,
// a branch, a step, an element; keep each change under which the subject still disagrees. What
// is left is a case of a few keywords that a person can read and turn into a corpus row.

export interface ReduceBudget {
  /** Stop trying after this time (Date.now()). */
  deadline: number;
  /** Stop after this many tries. */
  maxTries: number;
}

/** The simplest probe found under which `stillFails` holds, and how many tries it took. */
export async function reduce(probe: Probe, stillFails: (probe: Probe) => Promise<boolean>, budget: ReduceBudget): Promise<{ probe: Probe; tries: number }> {
  let current = probe;
  let tries = 0;
  let improved = true;
  while (improved) {
    improved = false;
    for (const candidate of simplerProbes(current)) {
      if (tries >= budget.maxTries || Date.now() >= budget.deadline) return { probe: current, tries };
      tries++;
      if (await stillFails(candidate)) {
        current = candidate;
        improved = true;
        break;
      }
    }
  }
  return { probe: current, tries };
}

/** One-step simplifications of a probe, the boldest first. */
export function* simplerProbes(probe: Probe): Generator<Probe> {
  if (probe.kind === "validate") {
    // the case one level down: a property's or an element's schema against its value
    for (const [schema, tree] of inner(probe.schema, probe.tree)) if (isObject(schema)) yield validateProbeOf(schema, tree, probe.cut, probe.tier);
    for (const [schema, tree] of shorterTogether(probe.schema, probe.tree)) yield validateProbeOf(schema, tree, probe.cut, probe.tier);
    for (const schema of simplerSchemas(probe.schema)) {
      if (isObject(schema)) yield validateProbeOf(schema, probe.tree, probe.cut, probe.tier);
    }
    for (const tree of simplerTrees(probe.tree)) yield validateProbeOf(probe.schema, tree, probe.cut, probe.tier);
    return;
  }
  // a call that disagrees may be the validator alone: its tool's schema and the call's argument, as a validate case
  for (const step of probe.steps) {
    if (step.op !== "call") continue;
    // arguments written as a text ({"a":1}) count when they are a JSON object
    const tree = "tree" in step.args ? step.args.tree : treeOfText(step.args.text);
    const tool = probe.steps.find((s): s is Extract<ProbeStep, { op: "register" }> => s.op === "register" && s.tool.name === step.call.name)?.tool;
    const schema = tool?.parametersText === undefined ? undefined : parseOrUndefined(tool.parametersText);
    if (tree && isObject(schema)) yield validateProbeOf(schema, tree, -1, probe.tier);
  }
  // a tool accepted or refused for its parameters may be the compiler alone: the schema, as a compile or validate case
  for (const step of probe.steps) {
    if (step.op !== "register" || step.tool.parametersText === undefined) continue;
    const schema = parseOrUndefined(step.tool.parametersText);
    if (isObject(schema)) yield validateProbeOf(schema, { t: "object", entries: [] }, -1, probe.tier);
  }
  const withSteps = (steps: ProbeStep[]): Probe => ({ ...probe, steps });
  for (let i = 0; i < probe.steps.length; i++) yield withSteps(probe.steps.filter((_, j) => j !== i));
  for (const [i, step] of probe.steps.entries()) {
    const replace = (next: ProbeStep) => withSteps(probe.steps.map((s, j) => (j === i ? next : s)));
    if (step.op === "register") for (const tool of simplerTools(step.tool)) yield replace({ ...step, tool });
    if (step.op === "call") {
      for (const args of simplerArguments(step.args)) yield replace({ ...step, args, call: { ...step.call, arguments: argumentsText(args) } });
    }
  }
}

function* simplerTools(tool: ToolRow): Generator<ToolRow> {
  if (tool.behavior.kind !== "echo") yield { ...tool, behavior: { kind: "echo" } };
  if (tool.parametersText !== undefined) {
    const { parametersText: _, ...missing } = tool;
    yield missing;
    for (const simpler of simplerSchemas(parseOrUndefined(tool.parametersText))) yield { ...tool, parametersText: JSON.stringify(simpler) };
  }
}

function* simplerArguments(args: CallArguments): Generator<CallArguments> {
  if ("text" in args) {
    if (args.text !== "{}") yield { text: "{}" };
    return;
  }
  for (const tree of simplerTrees(args.tree)) yield { tree };
}

/**
 * A schema with one thing less: a keyword, a property, a branch, a listed value; or a subschema in
 * its place; or a nested schema replaced by a canonical one (`{"type":"null"}`, `{"type":"boolean"}`)
 * that refuses the value as it did, so that a case's keywords are its bug's, not the ones the
 * generator happened to draw (`{"anyOf":[{"maxLength":0}]}` and `{"anyOf":[{"minimum":3}]}` both
 * end as `{"anyOf":[{"type":"null"}]}` when anyOf is what is wrong).
 */
export function* simplerSchemas(schema: unknown): Generator<unknown> {
  if (!isObject(schema)) return;
  const keys = Object.keys(schema);
  const without = (key: string) => Object.fromEntries(Object.entries(schema).filter(([k]) => k !== key));
  const withValue = (key: string, value: unknown) => ({ ...schema, [key]: value });
  // a branch or a nested schema in the place of the whole
  if (Array.isArray(schema.anyOf)) for (const branch of schema.anyOf) yield branch;
  for (const key of ["items", "additionalProperties"]) if (isObject(schema[key])) yield schema[key];
  if (isObject(schema.properties)) for (const sub of Object.values(schema.properties)) if (isObject(sub)) yield sub;
  for (const key of keys) yield without(key);
  for (const key of keys) {
    const value = schema[key];
    if (key === "properties" && isObject(value)) {
      for (const name of Object.keys(value)) {
        yield withValue(key, Object.fromEntries(Object.entries(value).filter(([k]) => k !== name)));
        for (const sub of canonical(value[name])) yield withValue(key, { ...value, [name]: sub });
        for (const sub of simplerSchemas(value[name])) yield withValue(key, { ...value, [name]: sub });
      }
    } else if ((key === "items" || key === "additionalProperties") && isObject(value)) {
      for (const sub of canonical(value)) yield withValue(key, sub);
      for (const sub of simplerSchemas(value)) yield withValue(key, sub);
    } else if (key === "anyOf" && Array.isArray(value)) {
      if (value.length > 1) for (let i = 0; i < value.length; i++) yield withValue(key, value.filter((_, j) => j !== i));
      for (const [i, branch] of value.entries()) {
        for (const sub of canonical(branch)) yield withValue(key, value.map((b, j) => (j === i ? sub : b)));
        for (const sub of simplerSchemas(branch)) yield withValue(key, value.map((b, j) => (j === i ? sub : b)));
      }
    } else if ((key === "enum" || key === "required" || key === "type") && Array.isArray(value)) {
      if (value.length > 1) for (let i = 0; i < value.length; i++) yield withValue(key, value.filter((_, j) => j !== i));
      if (key === "type" && value.length > 0) yield withValue(key, value[0]);
    }
  }
}

/** Canonical stand-ins for a nested schema that uses a keyword other than `type`: one refuses null, the other every non-boolean. */
function* canonical(schema: unknown): Generator<unknown> {
  if (!isObject(schema) || Object.keys(schema).every((k) => k === "type")) return;
  yield { type: "null" };
  yield { type: "boolean" };
}

/** A value with one thing less or plainer: a property, an element, a character, a number's respelling. */
export function* simplerTrees(tree: Tree): Generator<Tree> {
  switch (tree.t) {
    case "object":
      for (let i = 0; i < tree.entries.length; i++) yield { ...tree, entries: tree.entries.filter((_, j) => j !== i) };
      for (const [i, [key, value]] of tree.entries.entries()) {
        yield value;
        for (const sub of simplerTrees(value)) yield { ...tree, entries: tree.entries.map((e, j) => (j === i ? ([key, sub] as [string, Tree]) : e)) };
      }
      break;
    case "array":
      for (let i = 0; i < tree.items.length; i++) yield { ...tree, items: tree.items.filter((_, j) => j !== i) };
      for (const [i, item] of tree.items.entries()) {
        yield item;
        for (const sub of simplerTrees(item)) yield { ...tree, items: tree.items.map((e, j) => (j === i ? sub : e)) };
      }
      break;
    case "string":
      if (tree.v !== "") yield { t: "string", v: [...tree.v].slice(0, -1).join("") };
      break;
    case "number":
      if (tree.lit !== undefined) yield { t: "number", v: tree.v };
      if (tree.v !== 0) yield { t: "number", v: 0 };
      break;
    case "raw":
      yield { t: "null" };
      break;
    default:
      break;
  }
  // a plainer kind of value: only down the ranks, so the reduction always ends
  for (const p of PLAIN) if (RANK[p.t] < RANK[tree.t]) yield p;
}

const RANK: Record<Tree["t"], number> = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5, raw: 6 };
const PLAIN: Tree[] = [{ t: "null" }, { t: "number", v: 0 }, { t: "string", v: "" }, { t: "array", items: [] }];

/**
 * A const's or a listed enum value's array (or object) and the argument one element (or member)
 * shorter together: `{"const":[0,true]}` against `[false,true]` becomes `{"const":[0]}` against `[false]`.
 */
function* shorterTogether(schema: Record<string, unknown>, tree: Tree): Generator<[Record<string, unknown>, Tree]> {
  const pairs = (value: unknown): Generator<[unknown, Tree]> => shorterPairs(value, tree);
  if ("const" in schema) for (const [value, shorter] of pairs(schema.const)) yield [{ ...schema, const: value }, shorter];
  if (Array.isArray(schema.enum)) {
    const list = schema.enum as unknown[];
    for (const [k, listed] of list.entries()) for (const [value, shorter] of pairs(listed)) yield [{ ...schema, enum: list.map((x, j) => (j === k ? value : x)) }, shorter];
  }
}

function* shorterPairs(value: unknown, tree: Tree): Generator<[unknown, Tree]> {
  if (Array.isArray(value) && tree.t === "array" && tree.items.length === value.length) {
    for (let i = 0; i < value.length; i++) yield [value.filter((_, j) => j !== i), { ...tree, items: tree.items.filter((_, j) => j !== i) }];
  }
  if (isObject(value) && tree.t === "object") {
    for (const key of Object.keys(value)) {
      if (tree.entries.some(([k]) => k === key)) yield [Object.fromEntries(Object.entries(value).filter(([k]) => k !== key)), { ...tree, entries: tree.entries.filter(([k]) => k !== key) }];
    }
  }
}

/** Each subschema with the part of the value it judges: a declared property's value, another property's, an array's elements. */
function* inner(schema: Record<string, unknown>, tree: Tree): Generator<[unknown, Tree]> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  if (tree.t === "object") {
    for (const [key, value] of tree.entries) {
      if (Object.hasOwn(properties, key)) yield [properties[key], value];
      else if (isObject(schema.additionalProperties)) yield [schema.additionalProperties, value];
    }
  }
  if (tree.t === "array" && schema.items !== undefined) for (const item of tree.items) yield [schema.items, item];
}

/** The tree of a JSON object's text whose numbers are float64's own texts; undefined for any other text. */
function treeOfText(text: string): Tree | undefined {
  const value = parseOrUndefined(text);
  if (!isObject(value)) return undefined;
  const tree = treeOf(value);
  return render(tree) === JSON.stringify(value) && JSON.stringify(value) === text.replace(/\s/g, "") ? tree : undefined;
}

function treeOf(value: unknown): Tree {
  if (value === null) return { t: "null" };
  if (typeof value === "string") return { t: "string", v: value };
  if (typeof value === "number") return { t: "number", v: value };
  if (typeof value === "boolean") return { t: "boolean", v: value };
  if (Array.isArray(value)) return { t: "array", items: value.map(treeOf) };
  return { t: "object", entries: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, treeOf(v)] as [string, Tree]) };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
