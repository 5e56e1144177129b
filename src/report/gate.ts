import { formatPercent } from "../judge/scoring.js";
import { regressions } from "./baseline.js";
import type { Report } from "./report.js";

// Why `score` fails its run (exit 1), said once for every output: the terminal prints it on
// stderr, the step summary (summary.md) shows it, so a CI page says why its gate failed, not only
// the score.

export interface GateOptions {
  /** --min-score, percent. */
  minScore?: number;
  /** --baseline: the report and its path as given. */
  baseline?: { report: Report; path: string };
}

export interface Gate {
  /** Each reason the run fails, one line each; empty when it passes. */
  reasons: string[];
  /** The ids of rows that passed in the baseline and do not now. */
  regressed: string[];
}

/** The headline as the gate compares it (unrounded) and as it is shown. */
export function headlineScore(report: Report): { exact: number; shown: string } {
  const total = report.summary.scores.total;
  const weighted = report.summary.weighted;
  const exact = weighted ? weighted.percent : total.rows === 0 ? 100 : (total.passed / total.rows) * 100;
  return { exact, shown: formatPercent(weighted ? weighted.percent : total.percent) };
}

export function gateOf(report: Report, options: GateOptions): Gate {
  const reasons: string[] = [];
  const total = report.summary.scores.total;
  if (options.minScore === undefined) {
    if (total.passed < total.rows) reasons.push(`${total.rows - total.passed} of ${total.rows} rows did not pass, and without --min-score every row must`);
  } else {
    const { exact, shown } = headlineScore(report);
    if (exact < options.minScore) reasons.push(`score ${shown} is below --min-score ${options.minScore}%`);
  }
  let regressed: string[] = [];
  if (options.baseline) {
    regressed = regressions(report, options.baseline.report).regressed.map((row) => row.id);
    if (regressed.length > 0) reasons.push(`${regressed.length} row${regressed.length === 1 ? "" : "s"} passed in the baseline ${options.baseline.path} and ${regressed.length === 1 ? "fails" : "fail"} now`);
  }
  return { reasons, regressed };
}
