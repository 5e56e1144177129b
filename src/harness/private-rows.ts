import { TIERS, type Level, type ProfileName, type Row } from "../corpus/rows.js";
import { oneLine } from "../report/reporters/text.js";
import { runRows, selectRows } from "../run/runner.js";
import { inProcessSubject } from "../subjects/in-process.js";

// score --corpus: a grader's own rows run first against the reference. A row the reference does not
// pass is most likely a mistake in the row, and is named before any student is scored on it.

export interface RowTheReferenceFails {
  id: string;
  source?: string;
  /** What the row expects and what the reference answers, in words. */
  answer: string;
}

/** The rows (at `level`, every tier) the reference does not pass, each with its answer; and how many were run. */
export async function rowsTheReferenceFails(rows: readonly Row[], profile: ProfileName, level: Level): Promise<{ failing: RowTheReferenceFails[]; run: number }> {
  const { rows: taken } = selectRows(rows, { profile, tiers: [...TIERS], level });
  if (taken.length === 0) return { failing: [], run: 0 };
  const run = await runRows(inProcessSubject("reference"), taken, { profile, level, tiers: [...TIERS], progress: false, jobs: 1 });
  const failing = run.results
    .filter((result) => result.status !== "passed")
    .map((result) => {
      const source = taken.find((row) => row.id === result.id)?.source;
      const checks = result.checks.filter((check) => !check.pass);
      const answer =
        checks.length > 0
          ? checks.map((check) => `${check.what}: the row expects ${oneLine(JSON.stringify(check.expected) ?? "nothing")}, the reference answers ${oneLine(JSON.stringify(check.actual) ?? "nothing")}`).join("; ")
          : `the reference ${result.status === "skipped" ? "skips it" : "errors"}: ${oneLine(result.error ?? "no reason given")}`;
      return { id: result.id, ...(source ? { source } : {}), answer };
    });
  return { failing, run: taken.length };
}
