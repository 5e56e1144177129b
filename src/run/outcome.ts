import type { Check } from "./run-row.js";
import { LEVELS, makesMessageCheck, messageTierOf, TIERS, type Level, type Part, type Row, type Section, type Tier } from "../corpus/rows.js";

export const STATUSES = ["passed", "failed", "errored", "skipped"] as const;
export type Status = (typeof STATUSES)[number];

/** One row's result in a report. */
export interface RowResult {
  id: string;
  section: Section;
  tier: Tier;
  /** The tier of the row's exact-text checks, when it has them and it is not the row's own tier. */
  messageTier?: Tier;
  rule: string;
  pitfalls: string[];
  /** The part of the score the row counts in; absent is "corpus" (reports of the shipped corpus stay as they were). */
  part?: Part;
  status: Status;
  /** Every comparison made (empty when errored or skipped). */
  checks: Check[];
  /** Why the row errored or was skipped. */
  error?: string;
  /** Subject output on stderr around the row, for an errored row. */
  stderr?: string;
  /** Set when the row errored on the grader's side (markGraderFault): what the operating system said. */
  graderFault?: string;
  /** Set when the row ran twice: its first attempt timed out while the machine was starved (why). */
  retried?: string;
  ms: number;
}

export interface ScoreOptions {
  level: Level;
  tiers: Tier[];
}

/**
 * Whether a check counts: at or below the chosen level, and of a chosen tier. Every check has a
 * tier of its own (a core row's exact-text check is usually catalog: the spec leaves the wording
 * open), so a core score counts only what the spec fixes.
 */
export function isActive(check: Check, options: ScoreOptions): boolean {
  if (LEVELS.indexOf(check.level) > LEVELS.indexOf(options.level)) return false;
  return options.tiers.includes(check.tier);
}

/**
 * The tiers a row is scored under, decided by the row, never by an answer: its own tier (its verdict
 * and paths), and at the messages level its exact-text checks' tier when it has one of its own. So a
 * tier's rows are the same for every subject: an answer cut short (a schema refused, a crash) is
 * not passed in a tier whose checks it never reached, rather than left out of it.
 */
export function tiersOfRow(row: Pick<RowResult, "tier" | "messageTier">, options: ScoreOptions): Tier[] {
  const present = [row.tier, ...(options.level === "messages" && row.messageTier ? [row.messageTier] : [])];
  return TIERS.filter((tier) => options.tiers.includes(tier) && present.includes(tier));
}

/** The part of the score a row counts in. */
export function partOf(result: Pick<RowResult, "part">): Part {
  return result.part ?? "corpus";
}

export function statusOf(checks: Check[], options: ScoreOptions): Status {
  return checks.every((check) => !isActive(check, options) || check.pass) ? "passed" : "failed";
}

/** The first active check that failed: what a report shows as expected against actual. */
export function firstFailure(result: RowResult, options: ScoreOptions): Check | undefined {
  return result.checks.find((check) => isActive(check, options) && !check.pass);
}

export function resultOf(row: Row, status: Status, checks: Check[], ms: number, error?: string, stderr?: string): RowResult {
  return {
    id: row.id,
    section: row.section,
    tier: row.tier,
    ...(makesMessageCheck(row) && messageTierOf(row) !== row.tier ? { messageTier: messageTierOf(row) } : {}),
    rule: row.rule,
    pitfalls: row.pitfalls,
    ...(row.part !== undefined && row.part !== "corpus" ? { part: row.part } : {}),
    status,
    checks,
    ms,
    ...(error !== undefined ? { error } : {}),
    ...(stderr ? { stderr } : {}),
  };
}
