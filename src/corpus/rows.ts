import type { Segment } from "../schema/path.js";
import type { ToolRecord } from "../registry/registry.js";

// The corpus row format; conformance/README.md explains it and conformance/row.schema.json checks it.

/** What a registered tool does when called (PROTOCOL.md, "Behaviors"): the adapter builds it. */
export type Behavior =
  | { kind: "echo" }
  | { kind: "reply"; text: string }
  | { kind: "fail"; text: string }
  | { kind: "panic"; value: unknown }
  | { kind: "sleep"; ms: number; text: string }
  | { kind: "hang" };

export const SECTIONS = [
  "TestHandWorkedExample",
  "TestValidateTable",
  "TestCompileRejectsUnsupported",
  "TestRegisterRules",
  "TestDefinitionsSorted",
  "TestCallNeverPanics",
] as const;
export type Section = (typeof SECTIONS)[number];

/**
 * core: what the profile's spec states; catalog: our readings where it is silent, our wording;
 * hardening: beyond the spec (float64, RE2 against ECMA-262, timeouts); extension: what a spec names
 * as going further (the lesson profile's local $ref and additionalProperties: false).
 */
export const TIERS = ["core", "catalog", "hardening", "extension"] as const;
export type Tier = (typeof TIERS)[number];

export const LEVELS = ["verdict", "paths", "messages"] as const;
export type Level = (typeof LEVELS)[number];

/** ag02: seed 000, the Go module. lesson: seed 001, the Python lesson (JSON Pointer paths, records). */
export const PROFILES = ["ag02", "lesson"] as const;
export type ProfileName = (typeof PROFILES)[number];

/** Older names still accepted: `pointer` was the lesson profile's first name. */
export const PROFILE_ALIASES: Readonly<Record<string, ProfileName>> = { pointer: "lesson" };

/** Whether a subject's start reply offers the profile, under its name or an older one. */
export function offersProfile(profiles: readonly string[], profile: string): boolean {
  const wanted = profileNamed(profile) ?? profile;
  return profiles.some((name) => (profileNamed(name) ?? name) === wanted);
}

/** The profile a name stands for (itself, or what an alias names); undefined for an unknown name. */
export function profileNamed(name: string): ProfileName | undefined {
  return (PROFILES as readonly string[]).includes(name) ? (name as ProfileName) : PROFILE_ALIASES[name];
}

/**
 * The part of the score a row counts in: the shipped corpus, a grader's own rows (score --corpus
 * DIR), or generated cases (score --fresh). Set by whoever loads the rows, never by a row file, so
 * a score can be told apart by where its rows came from.
 */
export const PARTS = ["corpus", "private", "fresh"] as const;
export type Part = (typeof PARTS)[number];

export type InstanceText = string | { concat: { text: string; times?: number }[] };

interface RowBase {
  id: string;
  section: Section;
  rule: string;
  tier: Tier;
  messageTier?: Tier;
  pitfalls: string[];
  why: string;
  profiles?: ProfileName[];
  /** Where the row came from (file name), filled in by the loader. */
  source?: string;
  /** The part of the score it counts in; absent is "corpus". Filled in by the loader. */
  part?: Part;
}

interface SchemaSource {
  schema?: unknown;
  schemaText?: string;
}

export interface ExpectedError {
  path: Segment[];
  message: string;
  /** The type a type error expects (the lesson profile's expected_type). */
  expectedType?: string;
}

export interface ValidateRow extends RowBase, SchemaSource {
  kind: "validate";
  instance: InstanceText;
  expect: { errors: ExpectedError[] };
  /** Rows imported from JSON-Schema-Test-Suite know only the verdict. */
  verdictOnly?: boolean;
}

export interface CompileRow extends RowBase, SchemaSource {
  kind: "compile";
  expect: { ok: true } | { ok: false; error?: string };
}

export interface ToolRow {
  name: string;
  description: string;
  parameters?: unknown;
  parametersText?: string;
  behavior: Behavior;
  /** The lesson profile's record fields. */
  idempotent?: boolean;
  timeoutMs?: number | null;
  handler?: "sync" | "async";
}

/** A tool's record as the lesson profile's get() returns it: the reference's own shape. */
export type { ToolRecord } from "../registry/registry.js";

export type SimpleStep =
  | { op: "register"; tool: ToolRow; override?: boolean; expect: { ok: true } | { ok: false; error?: string } }
  | { op: "names"; expect: string[] }
  | { op: "definitions"; expect: { name: string; description: string; parameters: unknown }[] }
  | { op: "get"; name: string; expect: { found: true; record: ToolRecord } | { found: false } }
  | { op: "validate"; name: string; instance: string; expect: { errors: ExpectedError[] } | { refused: true } }
  | {
      op: "call";
      call: { id: string; name: string; arguments: string };
      expect: { isError: boolean; runs: string[]; content?: string; contentIncludes?: string[]; contentExcludes?: string[] };
    };

/** Steps run all at once on one registry (the spec: "safe for concurrent use"). */
export type ConcurrentStep = { op: "concurrently"; steps: SimpleStep[] };

export type Step = SimpleStep | ConcurrentStep;

export interface RegistryRow extends RowBase {
  kind: "registry";
  registry?: { timeoutMs?: number };
  steps: Step[];
}

export type Row = ValidateRow | CompileRow | RegistryRow;

/** The exact text a row's schema is sent as. */
export function schemaTextOf(row: SchemaSource): string {
  return row.schemaText ?? JSON.stringify(row.schema);
}

/** The exact parameters text a tool is registered with; null for a missing schema. */
export function parametersTextOf(tool: Pick<ToolRow, "parameters" | "parametersText">): string | null {
  return tool.parametersText ?? (tool.parameters === undefined || tool.parameters === null ? null : JSON.stringify(tool.parameters));
}

/** The exact argument text a row sends. */
export function instanceTextOf(instance: InstanceText): string {
  if (typeof instance === "string") return instance;
  return instance.concat.map((part) => part.text.repeat(part.times ?? 1)).join("");
}

/** The tier of a row's exact-message check. */
export function messageTierOf(row: Row): Tier {
  return row.messageTier ?? (row.tier === "core" ? "catalog" : row.tier);
}

/**
 * Whether a right answer to the row is checked down to its exact text: decided by the row, never by
 * an answer, so a row counts in the same tiers for every subject (one cut short still counts there).
 */
export function makesMessageCheck(row: Row): boolean {
  switch (row.kind) {
    case "validate":
      return row.verdictOnly !== true;
    case "compile":
      return !row.expect.ok && row.expect.error !== undefined;
    case "registry":
      return row.steps.some((step) => (step.op === "concurrently" ? step.steps.some(stepMakesMessageCheck) : stepMakesMessageCheck(step)));
  }
}

function stepMakesMessageCheck(step: SimpleStep): boolean {
  switch (step.op) {
    case "register":
      return !step.expect.ok && step.expect.error !== undefined;
    case "validate":
      return !("refused" in step.expect);
    case "call":
      return step.expect.content !== undefined;
    default:
      return false;
  }
}

/** Whether a row applies to a profile. */
export function appliesTo(row: Row, profile: ProfileName): boolean {
  return !row.profiles || row.profiles.includes(profile);
}

/**
 * The rows that apply to a profile, as it scores them. Core is a profile's own spec: in the lesson profile a row written
 * for it (its `profiles` name the lesson) keeps its tiers, and a row shared with ag02 is seed 000's
 * rule, not the lesson's, so its core checks count as catalog there.
 */
export function rowsForProfile(rows: readonly Row[], profile: ProfileName): Row[] {
  return rows.filter((row) => appliesTo(row, profile)).map((row) => rowForProfile(row, profile));
}

/** One row as a profile scores it (see rowsForProfile). */
export function rowForProfile<R extends Row>(row: R, profile: ProfileName): R {
  if (profile !== "lesson" || row.profiles?.includes("lesson")) return row;
  if (row.tier !== "core" && row.messageTier !== "core") return row;
  const demote = (tier: Tier): Tier => (tier === "core" ? "catalog" : tier);
  return { ...row, tier: demote(row.tier), messageTier: demote(messageTierOf(row)) };
}
