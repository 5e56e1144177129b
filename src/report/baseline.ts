import type { Report, ReportRow } from "./report.js";
import type { ProfileName } from "../corpus/rows.js";
import type { ScoreOptions } from "../run/outcome.js";
import { passes } from "../judge/scoring.js";

// score --baseline: the rows that passed in an earlier report and do not pass now.

/** Why a baseline scored with other settings cannot be compared row for row; undefined when it can. */
export function baselineMismatch(baseline: Report, run: ScoreOptions & { profile: ProfileName }): string | undefined {
  const b = baseline.header;
  if (b.profile === run.profile && b.level === run.level && b.tiers.join() === run.tiers.join()) return undefined;
  return `was scored with profile ${b.profile}, level ${b.level}, tiers ${b.tiers.join(",")}; this run uses profile ${run.profile}, level ${run.level}, tiers ${run.tiers.join(",")}`;
}

/** The rows of `report` that passed in `baseline` and do not pass now, and how many rows the two share. */
export function regressions(report: Report, baseline: Report): { regressed: ReportRow[]; compared: number } {
  const before = new Map(baseline.rows.map((row) => [row.id, row]));
  const options = { level: report.header.level, tiers: report.header.tiers };
  const regressed = report.rows.filter((row) => {
    const old = before.get(row.id);
    return old !== undefined && passes(old, options) && !passes(row, options);
  });
  return { regressed, compared: report.rows.filter((row) => before.has(row.id)).length };
}
