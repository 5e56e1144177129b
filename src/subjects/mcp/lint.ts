import { NAME_PATTERN } from "../../registry/names.js";
import { deeperThan, MAX_SCHEMA_DEPTH } from "./limits.js";
import { isRecord } from "./sample.js";
import { judgeable } from "./subset.js";

// The contract a server advertises in tools/list, read before any call: what each tool's name and
// inputSchema promise, held against the seed's rules and MCP's. Information for the server's
// author only: no row, score or exit code depends on it. Each rule and the sentence it follows
// from: docs/mcp.md, "The advertised contract, linted".

/** MCP's rule for a tool name (2025-11-25, Tool Names): 1 to 128 of A-Za-z0-9, _, - and . */
export const MCP_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export type LintRule =
  /** An object whose additionalProperties is absent, true or {}: any property the model invents is within the contract. */
  | "open-object"
  /** An object with properties and no required list: {} is a valid call. */
  | "no-required"
  /** A string with no maxLength, enum, const or bounding pattern: any length is valid. */
  | "unbounded-string"
  /** A name outside MCP's rule (and so outside the seed's). */
  | "name-mcp"
  /** A name within MCP's rule, outside the seed's ^[A-Za-z0-9_-]{1,64}$. */
  | "name-seed"
  /** What subset.ts drops or cannot judge: a keyword outside the subset, or a schema too deep. */
  | "not-judged";

export const LINT_RULES: readonly LintRule[] = ["open-object", "no-required", "unbounded-string", "name-mcp", "name-seed", "not-judged"];

export interface LintFinding {
  rule: LintRule;
  /** Where in the tool's inputSchema ($, $.properties.address); absent for the name. */
  at?: string;
  /** For not-judged: what was not judged, as subset.ts says it (`format at $.properties.email`). */
  detail?: string;
}

export interface ToolLint {
  tool: string;
  findings: LintFinding[];
  /** Findings past MAX_FINDINGS, counted, not listed. */
  more?: number;
}

/** The most findings kept for one tool: a schema of 10,000 open strings says so in 25 and a count. */
export const MAX_FINDINGS = 25;

/** The tools with findings, in the order given; a tool with none is left out. */
export function lintTools(tools: readonly { name: string; inputSchema?: unknown }[]): ToolLint[] {
  const out: ToolLint[] = [];
  for (const tool of tools) {
    const findings = lintTool(tool.name, tool.inputSchema);
    if (findings.length === 0) continue;
    out.push({ tool: tool.name, findings: findings.slice(0, MAX_FINDINGS), ...(findings.length > MAX_FINDINGS ? { more: findings.length - MAX_FINDINGS } : {}) });
  }
  return out;
}

/** One tool's findings: its name first, then its schema's, in the order of a walk from the root. */
export function lintTool(name: string, inputSchema: unknown): LintFinding[] {
  const findings: LintFinding[] = [];
  if (!MCP_NAME_PATTERN.test(name)) findings.push({ rule: "name-mcp" });
  else if (!NAME_PATTERN.test(name)) findings.push({ rule: "name-seed" });
  // a schema too deep to walk is said by subset.ts below; nothing else is read in it. The seed reads no schema as {"type":"object"}
  if (!deeperThan(inputSchema, MAX_SCHEMA_DEPTH)) walk(inputSchema === undefined ? { type: "object" } : inputSchema, "$", true, findings);
  let judged: ReturnType<typeof judgeable> | undefined;
  try {
    judged = judgeable(inputSchema);
  } catch {
    // a schema the loosening cannot read: its probes say so (their row errors); the lint is only information
    judged = undefined;
  }
  for (const detail of judged?.dropped ?? []) findings.push({ rule: "not-judged", detail });
  if (judged?.unjudged !== undefined) findings.push({ rule: "not-judged", detail: judged.unjudged });
  return findings;
}

/**
 * The schema read where the subset reads it: the root, each property's schema, `items`, an
 * `additionalProperties` schema and each `anyOf` option. A subschema holding `$ref` is not
 * followed (what it points to is not read here). Depth is bounded by the caller's deeperThan.
 */
function walk(schema: unknown, at: string, root: boolean, findings: LintFinding[]): void {
  if (!isRecord(schema) || "$ref" in schema) return;
  const types = typeNames(schema.type);
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const keys = Object.keys(properties);
  // an object with properties, or the root of a tool with no parameters (MCP recommends it closed)
  if ((keys.length > 0 || (root && types.has("object"))) && isOpen(schema)) findings.push({ rule: "open-object", at });
  // draft-03 says required on each property, as a boolean: that is a required list too
  const eachRequired = keys.some((key) => { const sub = properties[key]; return isRecord(sub) && typeof sub.required === "boolean"; });
  if (keys.length > 0 && !("required" in schema) && !eachRequired) findings.push({ rule: "no-required", at });
  if (types.has("string") && !boundsString(schema)) findings.push({ rule: "unbounded-string", at });
  for (const key of keys) walk(properties[key], `${at}.properties.${key}`, false, findings);
  if (isRecord(schema.items)) walk(schema.items, `${at}.items`, false, findings);
  if (isRecord(schema.additionalProperties)) walk(schema.additionalProperties, `${at}.additionalProperties`, false, findings);
  if (Array.isArray(schema.anyOf)) schema.anyOf.forEach((option, i) => walk(option, `${at}.anyOf[${i}]`, false, findings));
}

/** additionalProperties absent, true or {}: and not closed by unevaluatedProperties: false either. */
function isOpen(schema: Record<string, unknown>): boolean {
  if (schema.unevaluatedProperties === false) return false;
  const extra = schema.additionalProperties;
  return extra === undefined || extra === true || (isRecord(extra) && Object.keys(extra).length === 0);
}

/**
 * Whether a string schema bounds its length: maxLength, enum or const; or a pattern anchored at
 * both ends with no unbounded repetition (*, +, {n,}) and no alternation (|), read from its text
 * alone (so a pattern that bounds in a way this reading cannot tell is still a finding).
 */
function boundsString(schema: Record<string, unknown>): boolean {
  if (typeof schema.maxLength === "number" || Array.isArray(schema.enum) || "const" in schema) return true;
  const pattern = schema.pattern;
  return typeof pattern === "string" && /^\^/.test(pattern) && /(?<!\\)\$$/.test(pattern) && !/[*+|]|\{\d+,\}/.test(pattern);
}

function typeNames(type: unknown): Set<string> {
  if (typeof type === "string") return new Set([type]);
  return new Set(Array.isArray(type) ? type.filter((name): name is string => typeof name === "string") : []);
}
