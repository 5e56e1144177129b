import { MAX_ITEMS, withinCap } from "./limits.js";
import { isRecord, sampleOf, typesOf } from "./sample.js";

// Places in a tool's arguments, as the seed writes an error's path without its `$`, and the
// arguments with one value put at such a place: what nested probes and valid calls are made of.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type Path = readonly (string | number)[];

/**
 * A path as the seed writes one, without its `$`: `params.name`, `rows[0].title`. A top-level name
 * is written as it is (the ids probes had before nested ones), a nested one quoted when it is not an
 * identifier (`params["a.b"]`), so that two paths never read the same.
 */
export function pathLabel(path: Path): string {
  let out = "";
  for (const [i, segment] of path.entries()) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (i === 0) out += segment;
    else out += /^[A-Za-z_$][\w$-]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** `root` with `value` at `path` (copies along the path; the rest shared). */
export function setAt(root: Json, path: Path, value: Json): Json {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (typeof head === "number" && Array.isArray(root)) return root.map((element, i) => (i === head ? setAt(element, rest, value) : element));
  const record = isRecord(root) ? (root as { [key: string]: Json }) : {};
  return { ...record, [head!]: setAt(record[head as string] ?? null, rest, value) };
}

/** The value at `path` in `root`, or undefined where there is none. */
export function valueAt(root: Json | undefined, path: Path): Json | undefined {
  let node = root;
  for (const segment of path) {
    if (typeof segment === "number") node = Array.isArray(node) ? node[segment] : undefined;
    else node = isRecord(node) ? (node as { [key: string]: Json })[segment] : undefined;
  }
  return node;
}

/** An object nested in the arguments, to work inside: its schema, the arguments holding it, and where it is. */
export interface Inside {
  schema: Record<string, unknown>;
  base: Json;
  at: Path;
  /** What it is: a property's own object, or an array's first element. */
  kind: "object" | "element";
}

/** Whether a schema describes an object with something to work on inside it (properties, required ones, or no other keys allowed). */
function objectWithin(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const types = typesOf(schema);
  const object = types.includes("object") || (types.length === 0 && isRecord(schema.properties));
  return object && (isRecord(schema.properties) || Array.isArray(schema.required) || schema.additionalProperties === false);
}

/** What object a property's schema holds to work inside: its own, or its array's elements. */
function kindInside(sub: Record<string, unknown>): Inside["kind"] | undefined {
  if (objectWithin(sub)) return "object";
  return typesOf(sub).includes("array") && objectWithin(sub.items) ? "element" : undefined;
}

/** Whether a property's schema holds an object to work inside. */
export function holdsObject(sub: Record<string, unknown>): boolean {
  return kindInside(sub) !== undefined;
}

/**
 * The object inside the property at `path` (its own, or its array's first element), on arguments
 * that hold one: the property's value in `root` when it has one, else a sample of it, accepted by
 * `valid` (the whole schema's verdict). Undefined when it holds none (holdsObject), or no valid
 * arguments holding one were found.
 */
export function insideOf(sub: Record<string, unknown>, root: Json, path: Path, valid: (args: Json) => boolean): Inside | undefined {
  const kind = kindInside(sub);
  if (kind === undefined) return undefined;
  const current = valueAt(root, path);
  let value: Json | undefined;
  if (kind === "object") value = isRecord(current) ? current : sampleOf(sub);
  else if (Array.isArray(current) && current.length > 0 && isRecord(current[0])) value = current;
  else {
    const element = sampleOf(sub.items);
    const fewest = Math.max(1, withinCap(sub.minItems ?? 0, MAX_ITEMS) ?? 1);
    value = element === undefined ? undefined : Array.from({ length: fewest }, () => element);
  }
  const at = kind === "object" ? path : [...path, 0];
  const base = value === undefined ? undefined : setAt(root, path, value);
  if (base === undefined || !isRecord(valueAt(base, at)) || !valid(base)) return undefined;
  return { schema: (kind === "object" ? sub : sub.items) as Record<string, unknown>, base, at, kind };
}

/** The most schema nodes read for property names: a hostile inputSchema may be huge. */
const MAX_NODES = 10_000;

/**
 * Every property name an inputSchema declares, at any depth (under `properties` anywhere in it):
 * a refusal's path begins with one (`params.name: …`), a library's object does not.
 */
export function propertyNames(inputSchema: unknown): Set<string> {
  const names = new Set<string>();
  const stack: unknown[] = [inputSchema];
  for (let read = 0; stack.length > 0 && read < MAX_NODES; read++) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node.slice(0, MAX_NODES));
    else if (isRecord(node)) {
      const record = node as Record<string, unknown>;
      if (isRecord(record.properties)) for (const name of Object.keys(record.properties as object)) names.add(name);
      stack.push(...Object.values(record).slice(0, MAX_NODES));
    }
  }
  return names;
}
