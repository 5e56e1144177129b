import { isRecord } from "./sample.js";

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
