import { pitfallLabel } from "../../judge/diagnosis.js";
import { Option, type Command } from "commander";
import type { ProfileName } from "../../corpus/rows.js";
import { profileOption } from "../arguments.js";
import { loadCorpus } from "../../corpus/load.js";
import { SECTIONS, type Section } from "../../corpus/rows.js";
import { MutantError } from "../../mutants/catalog.js";
import { killMatrix, type KillMatrix } from "../../mutants/matrix.js";
import { EXIT, UsageError } from "../errors.js";

/** Short column heads for the six sections, in the seed's order. */
export const SECTION_HEADS: Record<Section, string> = {
  TestHandWorkedExample: "Example",
  TestValidateTable: "Validate",
  TestCompileRejectsUnsupported: "Compile",
  TestRegisterRules: "Register",
  TestDefinitionsSorted: "Defs",
  TestCallNeverPanics: "Call",
};

/** `mutants [--format text|json] [--only sNN]`: the kill matrix of the pitfall mutants. */
export function register(program: Command): void {
  program
    .command("mutants")
    .description("run the corpus against the reference and the pitfall mutants (s01-s17 and later) and print the kill matrix (exit 0 only when the reference passes every row and every mutant is killed by its seed-named sections)")
    .addOption(new Option("--format <format>", "output format").choices(["text", "json"]).default("text"))
    .option("--only <ids...>", "only these mutants (e.g. --only s03 s17, or s03,s17)")
    .addOption(profileOption("the profile whose mutants and rows: ag02 (seed 000's pitfalls, the default) or lesson (the lesson's own mistakes, on its rows)"))
    .action(async (options: { format: "text" | "json"; only?: string[]; profile: ProfileName }) => {
      const only = options.only?.flatMap((id) => id.split(",")).map((id) => id.trim()).filter(Boolean);
      let matrix: KillMatrix;
      try {
        matrix = await killMatrix(loadCorpus(), { only, profile: options.profile });
      } catch (error) {
        if (error instanceof MutantError) throw new UsageError(error.message);
        throw error;
      }
      process.stdout.write(options.format === "json" ? JSON.stringify(matrix, null, 2) + "\n" : renderMatrix(matrix));
      process.exitCode = matrix.ok ? EXIT.ok : EXIT.failed;
    });
}

/** The kill matrix as text: the table, then each mutant's verdict and fingerprint. */
export function renderMatrix(matrix: KillMatrix): string {
  const out: string[] = [];
  const total = SECTIONS.reduce((n, s) => n + matrix.rows[s], 0);
  out.push(`kill matrix: ${matrix.mutants.length} mutants x 6 sections, ${total} rows (profile ${matrix.profile}, level ${matrix.level}, tiers ${matrix.tiers.join("+")})`);
  const ref = matrix.reference;
  out.push(ref.failing.length === 0 ? `reference: passes all ${total} rows` : `reference: FAILS ${ref.failing.length} of ${total} rows`);
  for (const f of ref.failing) out.push(`  ${f.id} (${f.status}): ${f.what}`);
  out.push("");
  out.push("failing rows per section; * marks a section the seed says must kill the mutant");
  out.push(SECTIONS.map((s) => `${SECTION_HEADS[s]} = ${s}`).join(", "));
  const heads = SECTIONS.map((s) => SECTION_HEADS[s]);
  const widths = heads.map((h) => Math.max(h.length, 5));
  const row = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(i === 0 ? 6 : 7) : c.padStart(widths[i - 2]!))).join("  ").trimEnd();
  out.push(row(["mutant", "pitfall", ...heads]) + "  killed");
  out.push(row(["", "rows", ...SECTIONS.map((s) => String(matrix.rows[s]))]));
  for (const m of matrix.mutants) {
    const cells = SECTIONS.map((s) => (m.sections.includes(s) ? "*" : "") + (m.bySection[s] === 0 ? "." : String(m.bySection[s])));
    // the lesson's mistakes say where it names them below; the column just says whose they are
    const pitfall = typeof m.pitfall === "string" && m.pitfall.startsWith("lesson:") ? "lesson" : String(m.pitfall);
    out.push(row([m.id, pitfall, ...cells]) + `  ${m.killed ? "yes" : "NO"}`);
  }
  out.push("");
  for (const m of matrix.mutants) {
    const named = m.sections.map((s) => `${s} (${m.bySection[s]})`).join(", ");
    const verdict = m.killed ? `killed by ${named}` : `NOT KILLED by ${m.missed.join(", ")}`;
    const also = m.alsoFails.length > 0 ? `; also fails ${m.alsoFails.map((s) => `${s} (${m.bySection[s]})`).join(", ")}` : "";
    out.push(`${m.id} ${m.title} (${pitfallLabel(m.pitfall)}): ${verdict}${also}`);
    for (const f of m.failures) out.push(`  ${f.id}${f.status === "errored" ? " (errored)" : ""}`);
    if (m.claimedButPassed.length > 0) out.push(`  (rows naming ${m.id} in "pitfalls" that it passes: ${m.claimedButPassed.join(", ")})`);
  }
  out.push("");
  const survivors = matrix.mutants.filter((m) => !m.killed).map((m) => m.id);
  const verdict = !matrix.ok ? `FAIL${survivors.length ? `: not killed where the seed says: ${survivors.join(", ")}` : ""}${ref.failing.length ? "; the reference fails rows" : ""}` : "ok: every mutant is killed where the seed says";
  out.push(`${verdict} (${(matrix.ms / 1000).toFixed(1)} s)`);
  return out.join("\n") + "\n";
}
