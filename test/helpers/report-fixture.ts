import { loadCorpus } from "../../src/corpus/load.js";
import { diagnose, type Fingerprint } from "../../src/judge/diagnosis.js";
import { evidenceOf, type Failure } from "../../src/judge/symptom.js";
import type { RowResult } from "../../src/run/outcome.js";
import { buildReport } from "../../src/report/build-report.js";
import { type Report } from "../../src/report/report.js";
import { TIERS, type Row } from "../../src/corpus/rows.js";
import { runRows } from "../../src/run/runner.js";
import { score } from "../../src/judge/scoring.js";
import { loadCatalog } from "../../src/mutants/catalog.js";
import { loadMutant } from "../../src/mutants/load.js";

// A report the reporters' tests share: mutant s06 over every ag02 row (rows failing in several
// sections, diagnosed as s06), then hostile text put where a subject's text goes: one row errored
// with a nasty stderr, one not answerable, one failing whose expected and actual differ only by a
// trailing NUL, and texts holding every character that breaks a careless writer.

/** Text that breaks careless XML, HTML, Markdown, terminal and CI-log writers. */
export const NASTY =
  "</script><b>bold</b> ]]> & \"quotes\" 'single' | pipe ``` fence \u0001 \ud800 <!-- end ]]> again \u0000 " +
  "\u001b[2J\u001b]0;pwned\u0007 \u202eevil\u202c \u200b %0A %25 , : \r\n::error title=x::fake\n  ::add-mask::secret\n##[error]legacy";

export const options = { level: "messages" as const, tiers: [...TIERS] };
export const RERUN = "tool-conformance score mutant:s06 --tier all";

export interface Fixture {
  report: Report;
  rows: Row[];
  /** Ids of the rows made hostile. */
  errored: string;
  skipped: string;
  nul: string;
  nasty: string;
}

export async function hostileFixture(): Promise<Fixture> {
  const rows = loadCorpus().filter((r) => !r.profiles || r.profiles.includes("ag02"));
  const s06 = loadCatalog().find((m) => m.id === "s06")!;
  const run = await runRows(await loadMutant(s06), rows, { profile: "ag02", ...options, progress: false });
  const answers: Record<string, Failure[]> = {};
  for (const result of run.results) {
    const evidence = result.status === "failed" ? evidenceOf(result.checks) : undefined;
    if (evidence !== undefined) answers[result.id] = evidence;
  }
  const fingerprint: Fingerprint = { id: "s06", pitfall: 5, title: "required not enforced", symptom: "the tool runs without city, or with a field it ignores", answers };
  const replace = (index: number, result: RowResult) => {
    run.results[index] = result;
    return result.id;
  };
  const passedCall = run.results.findIndex((r) => r.section === "TestCallNeverPanics" && r.status === "passed");
  const errored = replace(passedCall, { ...run.results[passedCall]!, status: "errored", checks: [], error: `the reply to "call" (seq 9) is not JSON: ${JSON.stringify(NASTY)}`, stderr: `panic: ${NASTY}\n` });
  const passedRegister = run.results.findIndex((r) => r.section === "TestRegisterRules" && r.status === "passed");
  const skipped = replace(passedRegister, { ...run.results[passedRegister]!, status: "skipped", checks: [], error: 'the subject does not offer the "registry" capability' });
  // a wrong message that differs from the expected one by a trailing NUL only
  const validate = run.results.findIndex((r) => r.section === "TestValidateTable" && r.status === "passed" && r.checks.some((c) => c.what === "errors" && Array.isArray(c.expected) && (c.expected as string[]).length === 1));
  const v = run.results[validate]!;
  const nul = replace(validate, {
    ...v,
    status: "failed",
    checks: v.checks.map((c) => (c.what === "errors" ? { ...c, pass: false, actual: [`${(c.expected as string[])[0]}\u0000`] } : c)),
  });
  // a failing check whose texts are nasty
  const failed = run.results.findIndex((r) => r.status === "failed" && r.section === "TestValidateTable" && r.id !== nul);
  const f = run.results[failed]!;
  const nasty = replace(failed, { ...f, checks: f.checks.map((c) => (c.pass ? c : { ...c, expected: [NASTY], actual: `${NASTY}\nsecond line` })) });
  const report = buildReport(run, {
    profile: "ag02",
    ...options,
    filters: {},
    corpusRows: rows.length,
    scores: score(run.results, options),
    diagnosis: diagnose(run.results, options, [fingerprint]),
    rows: rows.map((row) => (row.id === nasty && row.kind === "validate" ? { ...row, why: `${row.why} ${NASTY}` } : row)),
    rerun: RERUN,
  });
  return { report, rows, errored, skipped, nul, nasty };
}
