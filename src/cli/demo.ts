import { diagnose, pitfallLabel, type Fingerprint } from "../judge/diagnosis.js";
import type { ScoreOptions } from "../run/outcome.js";
import { paintFor, type Paint } from "../report/reporters/terminal.js";
import { loadCorpus } from "../corpus/load.js";
import { SECTIONS, TIERS, type ProfileName, type Row, type Section } from "../corpus/rows.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../run/runner.js";
import type { RowResult } from "../run/outcome.js";
import { scoreSubject } from "../harness/score-subject.js";
import { failingIds, formatPercent, score } from "../judge/scoring.js";
import { inProcessSubject } from "../subjects/in-process.js";
import { evidenceOf, type Failure } from "../judge/symptom.js";
import type { Subject } from "../subjects/subject.js";
import { loadCatalog, MutantError, mutantsFor, WIDER, widerOf, type Mutant } from "../mutants/catalog.js";
import { cacheFingerprints } from "../mutants/fingerprints.js";
import { withWider } from "../mutants/matrix.js";
import { loadMutant, readManifest } from "../mutants/load.js";
import { EXIT, UsageError } from "./errors.js";

// The default demo of `score` with no subject: the reference and every pitfall mutant,
// in-process, at once, as one table of scores and diagnoses.

export interface DemoOptions extends ScoreOptions {
  profile: ProfileName;
  corpus: Row[];
  jobs?: number;
  timeoutMs?: number;
  filters: string[];
}

interface DemoLine {
  label: string;
  run: { results: RowResult[] };
  mutant?: Mutant;
}

/** The reference and every mutant, in-process, at once: a table of scores and diagnoses. */
export async function demo(rows: Row[], options: DemoOptions): Promise<number> {
  const started = performance.now();
  let mutants: Mutant[];
  let subjects: Subject[];
  // the mutants' wider forms run too, unseen: the fingerprints the demo takes need them (mutants/matrix.ts)
  let wider: Mutant[];
  try {
    mutants = mutantsFor(loadCatalog(), options.profile);
    wider = mutants.flatMap((m) => widerOf(m) ?? []);
    const manifest = readManifest();
    subjects = await Promise.all([...mutants, ...wider].map((m) => loadMutant(m, undefined, manifest)));
  } catch (error) {
    if (error instanceof MutantError) throw new UsageError(`the demo needs the built mutants: ${error.message}`);
    throw error;
  }
  // each scored through the scoring API, undiagnosed: the demo diagnoses the mutants from their own runs
  const scoring = { profile: options.profile, level: options.level, tiers: options.tiers, rows, jobs: options.jobs ?? 4, timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, diagnosis: false };
  const all = [inProcessSubject("reference"), ...subjects];
  const reports = await Promise.all(all.map((subject) => scoreSubject({ subject }, scoring)));
  const lines: DemoLine[] = reports.slice(0, 1 + mutants.length).map((report, i) => ({ label: report.header.subject.label, run: { results: report.rows }, ...(i > 0 ? { mutant: mutants[i - 1]! } : {}) }));
  const reference = lines[0]!;
  const referenceFails = new Set(failingIds(reference.run.results, options));
  // fingerprints are taken over every check, whatever the run scores (see mutants/matrix.ts)
  const referenceOff = new Set(reference.run.results.filter((r) => r.status !== "passed" || evidenceOf(r.checks)).map((r) => r.id));
  const answersOf = (results: readonly RowResult[]) => {
    const answers: Record<string, Failure[]> = {};
    for (const result of results) {
      const evidence = referenceOff.has(result.id) || result.status === "errored" || result.status === "skipped" ? undefined : evidenceOf(result.checks);
      if (evidence !== undefined) answers[result.id] = evidence;
    }
    return answers;
  };
  const widerAnswers = new Map(wider.map((m, i) => [m.id, answersOf(reports[1 + mutants.length + i]!.rows)]));
  const prints: Fingerprint[] = lines.slice(1).map((line) => {
    const { id, pitfall, title, symptom } = line.mutant!;
    return withWider({ id, pitfall, title, symptom, answers: answersOf(line.run.results) }, widerAnswers.get(id + WIDER));
  });
  // the next score of a subject needs these very fingerprints for its diagnosis: when the demo ran the whole corpus
  if (options.filters.length === 0 && options.tiers.length === TIERS.length) cacheFingerprints(prints, options);

  const paint = paintFor();
  const out: string[] = [];
  const filters = options.filters.length ? ` · filter ${options.filters.join(" ")}` : "";
  // the first row count a newcomer reads: which rows these are, against the other counts they will meet
  const core = rows.filter((row) => row.tier === "core").length;
  out.push(`${paint("bold", "tool-conformance")} · the reference and ${mutants.length} pitfall mutants against ${rows.length} corpus rows`);
  const every = options.tiers.length === TIERS.length ? ` (the demo: profile ${options.profile}'s rows of every tier; a subject is scored on its ${core} core rows unless --tier says otherwise; ${loadCorpus().length} rows in the corpus, both profiles)` : "";
  out.push(paint("dim", `profile ${options.profile} · level ${options.level} · tiers ${options.tiers.join(", ")}${every}${filters}`));
  out.push("");
  const labelWidth = Math.max(...lines.map((l) => l.label.length)) + 2;
  const sections = SECTIONS.filter((s) => rows.some((r) => r.section === s));
  out.push(paint("dim", `  ${"subject".padEnd(labelWidth)}${"score".padStart(6)}  ${"failing".padStart(7)}  ${sections.map((s) => SECTION_LETTERS[s]).join(" ")}  diagnosis`));
  let recognised = 0;
  const survivors: string[] = [];
  for (const line of lines) {
    const scores = score(line.run.results, options);
    const t = scores.total;
    const failing = failingIds(line.run.results, options);
    const errored = line.run.results.some((r) => r.status === "errored");
    let diagnosisText: string;
    let diagnosisColor: Parameters<Paint>[0] = "dim";
    if (!line.mutant) {
      diagnosisText = failing.length === 0 ? "the oracle: passes every row" : `THE REFERENCE FAILS ${failing.length} ROWS: ${failing.slice(0, 3).join(", ")}`;
      diagnosisColor = failing.length === 0 ? "green" : "red";
    } else {
      const d = diagnose(line.run.results, options, prints);
      const top = d.matches[0];
      if (top && (top.id === line.mutant.id || top.alike.includes(line.mutant.id))) recognised++;
      if (failing.length === 0) {
        survivors.push(line.mutant.id);
        diagnosisText = `survives: no selected row tells it from the reference (${pitfallLabel(line.mutant.pitfall)}, ${line.mutant.title})`;
      } else {
        diagnosisText = top ? `${[top.id, ...top.alike].join("/")} · ${pitfallLabel(top.pitfall)}, ${top.title}: ${top.symptom}` : d.lines[0]!;
        if (d.matches.length > 1) diagnosisText += ` (+${d.matches.length - 1} more)`;
      }
      diagnosisColor = top ? "cyan" : "yellow";
    }
    const color = t.passed === t.rows ? "green" : t.percent >= 90 ? "yellow" : "red";
    const cells = sections.map((s) => {
      const tally = scores.sections[s]?.total;
      return !tally || tally.passed === tally.rows ? paint("green", "●") : paint("red", "✗");
    });
    const count = String(failing.length).padStart(6) + (errored ? paint("magenta", "!") : " ");
    // on a terminal, one line per subject: the diagnosis is cut to the width left
    const room = process.stdout.isTTY && process.stdout.columns ? process.stdout.columns - (2 + labelWidth + 6 + 2 + 7 + 2 + sections.length * 2 + 1) : Infinity;
    if (diagnosisText.length > room && room > 20) diagnosisText = `${diagnosisText.slice(0, room - 1)}…`;
    out.push(`  ${line.label.padEnd(labelWidth)}${paint(color, formatPercent(t.percent).padStart(6))}  ${count}  ${cells.join(" ")}  ${paint(diagnosisColor, diagnosisText)}`);
  }
  out.push("");
  out.push(paint("dim", `  ${sections.map((s) => `${SECTION_LETTERS[s]} ${s}`).join(" · ")}`));
  out.push(paint("dim", `  ● every row passes · ✗ some rows fail · ! some rows errored (a crash or a protocol break)`));
  out.push("");
  const referenceOk = referenceFails.size === 0;
  const ms = performance.now() - started;
  out.push(
    `${referenceOk ? paint("green", "reference 100%") : paint("red", "the reference fails rows")} · ${recognised} of ${mutants.length} mutants diagnosed as their own pitfall${survivors.length ? paint("yellow", ` · ${survivors.join(", ")} not detected with these settings`) : ""} · ${(ms / 1000).toFixed(2)} s`,
  );
  out.push(paint("dim", `next: tool-conformance score --subject "COMMAND" (or --module PATH, reference, mutant:sNN) --reporter html`));
  process.stdout.write(out.join("\n") + "\n");
  return referenceOk ? EXIT.ok : EXIT.failed;
}

/** One letter per section for the demo's columns. */
const SECTION_LETTERS: Record<Section, string> = {
  TestHandWorkedExample: "H",
  TestValidateTable: "V",
  TestCompileRejectsUnsupported: "C",
  TestRegisterRules: "R",
  TestDefinitionsSorted: "D",
  TestCallNeverPanics: "N",
};
