import type { Check } from "./run-row.js";
import { LEVELS, type Level, type Row, type Section, type Tier } from "./rows.js";

export type Status = "passed" | "failed" | "errored" | "skipped";

/** One row's result in a report. */
export interface RowResult {
  id: string;
  section: Section;
  tier: Tier;
  rule: string;
  pitfalls: string[];
  status: Status;
  /** Every comparison made (empty when errored or skipped). */
  checks: Check[];
  /** Why the row errored or was skipped. */
  error?: string;
  /** Subject output on stderr around the row, for an errored row. */
  stderr?: string;
  ms: number;
}

export interface ScoreOptions {
  level: Level;
  tiers: Tier[];
}

/** Whether a check counts: at or below the chosen level, and (for message texts) of a chosen tier. */
export function isActive(check: Check, options: ScoreOptions): boolean {
  if (LEVELS.indexOf(check.level) > LEVELS.indexOf(options.level)) return false;
  return check.level !== "messages" || options.tiers.includes(check.tier);
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
    rule: row.rule,
    pitfalls: row.pitfalls,
    status,
    checks,
    ms,
    ...(error !== undefined ? { error } : {}),
    ...(stderr ? { stderr } : {}),
  };
}
