// Which JSON Schema dialects a server's inputSchema may be read in, from its `$schema`. The
// loosening (subset.ts) keeps a keyword only when every possible reading enforces it at least as
// the reference does: a probe is proven invalid under each of them, so under the server's.

export type Reading = "draft-03" | "draft-04" | "draft-06" | "draft-07" | "2019-09" | "2020-12";

const ALL: readonly Reading[] = ["draft-03", "draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];
/**
 * No `$schema`: the dialects MCP tools are written in, draft-07 (most SDKs' converters) and
 * 2020-12 (the MCP default), with their neighbours; draft-03 and draft-04 are read only when named.
 */
const UNNAMED: readonly Reading[] = ["draft-06", "draft-07", "2019-09", "2020-12"];

/** The readings `$schema` allows: one when it names a known dialect, all when it names another. */
export function readingsOf(schemaUri: unknown): ReadonlySet<Reading> {
  if (schemaUri === undefined) return new Set(UNNAMED);
  if (typeof schemaUri !== "string") return new Set(ALL);
  const draft = /json-schema\.org\/draft-0([34567])\/schema/.exec(schemaUri)?.[1];
  if (draft === "5") return new Set<Reading>(["draft-04"]);
  if (draft !== undefined) return new Set<Reading>([`draft-0${draft}` as Reading]);
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(schemaUri)) return new Set<Reading>(["2019-09"]);
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(schemaUri)) return new Set<Reading>(["2020-12"]);
  return new Set(ALL);
}

/** Both sets of readings: a subschema naming a dialect of its own may be read either way. */
export function union(a: ReadonlySet<Reading>, b: ReadonlySet<Reading>): ReadonlySet<Reading> {
  return new Set([...a, ...b]);
}

const any = (readings: ReadonlySet<Reading>, names: Reading[]) => names.some((name) => readings.has(name));

/** Draft-07 and earlier ignore every sibling of `$ref`. */
export const refHidesSiblings = (r: ReadonlySet<Reading>) => any(r, ["draft-03", "draft-04", "draft-06", "draft-07"]);
/** `const` came in draft-06: before, it is an unknown keyword, ignored. */
export const constIgnored = (r: ReadonlySet<Reading>) => any(r, ["draft-03", "draft-04"]);
/** Draft-03's `required` is a boolean on the property; a list there is ignored. */
export const requiredListIgnored = (r: ReadonlySet<Reading>) => any(r, ["draft-03"]);
/** In 2020-12, `items` beside `prefixItems` applies only to the elements after the prefix. */
export const itemsAfterPrefix = (r: ReadonlySet<Reading>) => any(r, ["2020-12"]);
