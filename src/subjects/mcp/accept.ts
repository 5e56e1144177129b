import type { Section } from "../../corpus/rows.js";
import { compile, SchemaError, type Schema } from "../../schema/compile.js";
import { deeperThan, MAX_PROBE_DEPTH, MAX_SCHEMA_DEPTH } from "./limits.js";
import { insideOf, pathLabel, setAt, type Path } from "./paths.js";
import { inRange } from "./probes.js";
import { isRecord, PATTERN_CANDIDATES, sampleOf, typesOf } from "./sample.js";

// Acceptance calls: VALID arguments for a tool the user named as safe to run (--mcp-run), each on
// an edge of the subset where hand-written validators refuse what the seed accepts (3.0 is an
// integer, bounds are inclusive, lengths count code points, patterns match anywhere, enum and
// const compare numbers by value). Each is sent only when the reference validator accepts it
// under the tool's own inputSchema, whole: a schema with a keyword outside the subset gets no
// valid call, since that keyword might refuse what the reference accepts. The arguments are texts,
// so that a literal such as 3.0 reaches the server as written. Nested objects get their edges too,
// as the probes do (`integer-3.0/trip.nights`), down to MAX_PROBE_DEPTH levels.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface McpAccept {
  /** `mcp-accept/TOOL/PROBE`: stable per server and tool. */
  id: string;
  tool: string;
  /** `integer-3.0/days` */
  probe: string;
  /** The arguments sent, as JSON text. */
  text: string;
  /** The rule of the subset whose acceptance side it checks. */
  rule: string;
  section: Section;
  /** The seed's pitfalls a server that refuses it shows. */
  pitfalls: string[];
  why: string;
  /** The property it is about: a refusal naming it is one of this value. */
  names: string[][];
}

export interface ToolAccepts {
  tool: string;
  calls: McpAccept[];
  /** Why no valid call could be sent, when none could. */
  unjudged?: string;
}

/** An astral character: one code point, two UTF-16 units, four UTF-8 bytes. */
export const ASTRAL = "\u{1F4A9}";

/** Texts tried for a pattern, beyond the probes' own: digits and mixed shapes. */
const MORE_CANDIDATES = ["123", "1234", "12345", "abc123", "ABC", "a1b2", "aaa"];
/** What a match is put between, to show a pattern matches mid-string. */
const WRAPPERS: [string, string][] = [["a", "a"], ["-", "-"], ["0", "0"], [" ", " "], ["Z", "Z"]];

export function acceptsFor(tool: string, inputSchema: unknown): ToolAccepts {
  const raw = inputSchema === undefined ? { type: "object" } : inputSchema;
  if (!isRecord(raw)) return { tool, calls: [], unjudged: "its inputSchema is not an object" };
  if (deeperThan(raw, MAX_SCHEMA_DEPTH)) return { tool, calls: [], unjudged: `its inputSchema nests deeper than ${MAX_SCHEMA_DEPTH} levels (the cap)` };
  let schema: Schema;
  try {
    schema = compile(JSON.stringify(raw));
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    return { tool, calls: [], unjudged: `its inputSchema is not wholly in the subset (${error.message}), so the reference cannot prove a call valid` };
  }
  const base = sampleOf(raw);
  if (!isRecord(base) || schema.validate(base as never).length > 0) return { tool, calls: [], unjudged: "no value its inputSchema accepts was found" };
  const calls: McpAccept[] = [];
  const add = (probe: string, text: string, rule: string, section: Section, pitfalls: string[], why: string, names: string[][]) => {
    if (calls.some((c) => c.probe === probe)) return;
    // never sent unless proven valid, as text, under the tool's whole schema
    if (schema.validateJSON(text).length > 0) return;
    calls.push({ id: `mcp-accept/${tool}/${probe}`, tool, probe, text, rule, section, pitfalls, why, names });
  };
  const baseText = JSON.stringify(base);
  add("valid/base", baseText, "valid", "TestHandWorkedExample", [], "a call its inputSchema accepts runs the tool, once", Object.keys(base).map((name) => [name]));
  edges({ add, valid: (args) => schema.validate(args as never).length === 0 }, raw, base as Json, [], 0);
  return { tool, calls };
}

/** Where valid calls go and how the whole schema judges a base. */
interface Accepting {
  add: (probe: string, text: string, rule: string, section: Section, pitfalls: string[], why: string, names: string[][]) => void;
  valid: (args: Json) => boolean;
}

/**
 * The valid calls on the edges of each property of the object at `at` in `root` (a base proven
 * valid), then of the objects nested in it, down to MAX_PROBE_DEPTH levels, as the probes go.
 */
function edges({ add, valid }: Accepting, schema: Record<string, unknown>, root: Json, at: Path, depth: number): void {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const name of Object.keys(properties).sort()) {
    const sub = properties[name];
    if (!isRecord(sub)) continue;
    const path = [...at, name];
    const label = pathLabel(path);
    const edge = (probe: string, literal: string, rule: string, pitfalls: string[], why: string) => add(`${probe}/${label}`, withLiteral(root, path, literal), rule, "TestValidateTable", pitfalls, why, [[name]]);
    const types = typesOf(sub);
    const numeric = types.includes("integer") || types.includes("number");
    if (types.includes("integer")) {
      const whole = inRange(sub, 3, 0);
      edge("integer-3.0", `${whole}.0`, "type/integer", ["s01"], `"${label}" is an integer: ${whole}.0 is one (a number with no fractional part)`);
    }
    if (numeric && typeof sub.minimum === "number") edge("minimum-inclusive", JSON.stringify(sub.minimum), "minimum", ["s05"], `"${label}" has minimum ${sub.minimum}: ${sub.minimum} itself is accepted (inclusive)`);
    if (numeric && typeof sub.maximum === "number") edge("maximum-inclusive", JSON.stringify(sub.maximum), "maximum", ["s05"], `"${label}" has maximum ${sub.maximum}: ${sub.maximum} itself is accepted (inclusive)`);
    if (types.includes("string") && typeof sub.maxLength === "number" && Number.isSafeInteger(sub.maxLength) && sub.maxLength > 0 && sub.maxLength <= 10_000) {
      edge("max-length-code-points", JSON.stringify(ASTRAL.repeat(sub.maxLength)), "maxLength", ["s03", "s18"], `"${label}" has maxLength ${sub.maxLength}: ${sub.maxLength} astral characters are ${sub.maxLength} code points (though ${2 * sub.maxLength} UTF-16 units, ${4 * sub.maxLength} bytes)`);
    }
    if (types.includes("string") && typeof sub.pattern === "string") {
      const mid = midString(sub, sub.pattern);
      if (mid !== undefined) edge("pattern-mid-string", JSON.stringify(mid), "pattern", ["s04"], `"${label}" has pattern ${JSON.stringify(sub.pattern)}: ${JSON.stringify(mid)} matches it mid-string, which is a match (patterns are not anchored)`);
    }
    const listed = Array.isArray(sub.enum) ? sub.enum.find(isPlainNumber) : undefined;
    if (listed !== undefined) edge("enum-by-value", otherLiteral(listed), "enum", ["s09"], `"${label}" is one of ${JSON.stringify(sub.enum).slice(0, 80)}: ${otherLiteral(listed)} equals ${listed} (numbers compare by value)`);
    if ("const" in sub && isPlainNumber(sub.const)) edge("const-by-value", otherLiteral(sub.const), "const", ["s09"], `"${label}" must be ${sub.const}: ${otherLiteral(sub.const)} equals it (numbers compare by value)`);
    nested({ add, valid }, sub, root, path, depth);
  }
}

/** The valid calls inside a property's own object, or its array's first element, on arguments that hold one, proven valid. */
function nested(accepting: Accepting, sub: Record<string, unknown>, root: Json, path: Path, depth: number): void {
  if (depth + 1 > MAX_PROBE_DEPTH) return;
  const inside = insideOf(sub, root, path, accepting.valid);
  if (inside !== undefined) edges(accepting, inside.schema, inside.base, inside.at, depth + 1);
}

/** A value that is never a tool's: put where a literal goes, then replaced by the literal's text. */
const SLOT = "\u0000tool-conformance-literal\u0000";

/** The arguments' JSON text with `literal` at `path`, written as is (in place, or last in its object). */
function withLiteral(root: Json, path: Path, literal: string): string {
  return JSON.stringify(setAt(root, path, SLOT)).replace(JSON.stringify(SLOT), () => literal);
}

/** A string the property accepts in which the pattern matches only mid-string (not as the whole). */
function midString(sub: Record<string, unknown>, pattern: string): string | undefined {
  let own: Schema, whole: Schema, alone: Schema;
  try {
    own = compile(JSON.stringify(sub));
    whole = compile(JSON.stringify({ type: "string", pattern: `^(?:${pattern})$` }));
    alone = compile(JSON.stringify({ type: "string", pattern }));
  } catch {
    return undefined;
  }
  const matching = (text: string) => alone.validate(text as never).length === 0;
  for (const found of [...PATTERN_CANDIDATES, ...MORE_CANDIDATES].filter(matching)) {
    for (const [before, after] of WRAPPERS) {
      const text = `${before}${found}${after}`;
      if (own.validate(text as never).length === 0 && whole.validate(text as never).length > 0) return text;
    }
  }
  return undefined;
}

function isPlainNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && !/e/i.test(String(value));
}

/** The same number written otherwise: 1 as 1.0, 2.5 as 2.50. */
function otherLiteral(value: number): string {
  const text = String(value);
  return text.includes(".") ? `${text}0` : `${text}.0`;
}
