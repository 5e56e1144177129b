import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../corpus/load.js";
import { markdownTable } from "../report/reporters/text.js";
import { packageOf } from "../subjects/validators/index.js";
import { disagreementsOf, tableOf, type Comparison, type RuleDisagreement, type TableLine } from "./compare-validators.js";

// The validators comparison as text, JSON and Markdown (docs/validators.md).

/** Short column names: "@cfworker/json-schema" is "cfworker", "@exodus/schemasafe" is "schemasafe". */
function columnsOf(comparison: Comparison): string[] {
  return comparison.libraries.map(({ name }) => {
    const pkg = packageOf(name);
    const [scope, rest] = pkg.startsWith("@") ? pkg.slice(1).split("/") : [undefined, pkg];
    return (scope && rest === "json-schema" ? scope : rest!) + name.slice(pkg.length);
  });
}

function cell(agreed: number | undefined, total: number, missing: boolean): string {
  if (missing) return "n/a";
  if (agreed === undefined) return "–";
  return agreed === total ? `${agreed} ✓` : String(agreed);
}

function tableRows(comparison: Comparison, lines: TableLine[], level: "verdict" | "paths"): string[][] {
  return lines.map((line) => [
    line.section === "all" ? "all rows" : line.section,
    line.tier === "all" ? "" : line.tier,
    String(line.rows),
    ...comparison.libraries.map((library, i) => cell(line[level][i], line.rows, library.missing !== undefined)),
  ]);
}

export function jsonOf(comparison: Comparison) {
  return {
    rows: comparison.rows.length,
    libraries: comparison.libraries.map(({ results, ...library }) => ({
      ...library,
      agreed: {
        verdict: results.filter((r) => r.verdict === "agreed").length,
        ...(library.level === "paths" && !library.missing ? { paths: results.filter((r) => r.paths === "agreed").length } : {}),
      },
      errored: results.filter((r) => r.verdict === "errored").length,
      results,
    })),
    table: tableOf(comparison),
    disagreements: disagreementsOf(comparison),
  };
}

function libraryLines(comparison: Comparison): string[][] {
  return comparison.libraries.map((library) => [
    library.label,
    library.missing ? "not installed" : library.level,
    library.missing ? `install it with: npm install ${installSpec(packageOf(library.name))}` : library.note,
  ]);
}

/**
 * `ajv@8.20.0`: a validator library at the version this package declares it as an optional peer
 * dependency (the version the comparison was measured with).
 */
function installSpec(name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { peerDependencies?: Record<string, string> };
    const version = manifest.peerDependencies?.[name];
    return version ? `${name}@${version}` : name;
  } catch {
    return name;
  }
}

/** One line naming every library not installed and the one command that installs them all. */
function installLine(comparison: Comparison): string[] {
  const missing = comparison.libraries.filter((library) => library.missing);
  if (missing.length === 0) return [];
  return [
    "",
    `not installed: ${missing.map((library) => library.name).join(", ")} (optional peer dependencies of tool-conformance). To compare them too, install them beside it (in the same project, or with -g beside a global install):`,
    `  npm install ${[...new Set(missing.map((library) => installSpec(packageOf(library.name))))].join(" ")}`,
  ];
}

function disagreementLines(rule: RuleDisagreement, columns: Map<string, string>, code: (s: string) => string): string[] {
  return rule.libraries.map((entry) => {
    const errored = entry.errored > 0 ? `, ${entry.errored} errored` : "";
    const rows = `${entry.count} row${entry.count === 1 ? "" : "s"}${errored}`;
    return `${columns.get(entry.name) ?? entry.name} (${entry.level}, ${rows}): e.g. ${code(entry.example.id)}: ${entry.example.detail}`;
  });
}

export function textOf(comparison: Comparison, ms: number, jstsLine?: string): string {
  const columns = columnsOf(comparison);
  const lines = tableOf(comparison);
  const header = ["section", "tier", "rows", ...columns];
  const out: string[] = [];
  out.push(`Alternative validators over ${comparison.rows.length} validate and compile rows (${(ms / 1000).toFixed(1)} s)`);
  if (jstsLine) out.push(jstsLine);
  out.push("", ...pad([["library", "compared at", "how"], ...libraryLines(comparison)]));
  out.push(...installLine(comparison));
  out.push("", "Rows agreed, verdict level (valid or not; accepted or refused):", ...pad([header, ...tableRows(comparison, lines, "verdict")]));
  out.push("", "Rows agreed, paths level (the ordered error paths; – where the library's locations are lossy):", ...pad([header, ...tableRows(comparison, lines, "paths")]));
  const names = new Map(comparison.libraries.map((library, i) => [library.name, columns[i]!]));
  const rules = disagreementsOf(comparison);
  // no heading over nothing: say why there is nothing under it
  if (rules.length === 0) out.push("", `Disagreements by rule: none${noneWhy(comparison)}`);
  else out.push("", "Disagreements by rule (one example each):");
  for (const rule of rules) {
    out.push(`  ${rule.rule} (${rule.rows} row${rule.rows === 1 ? "" : "s"})`);
    for (const line of disagreementLines(rule, names, (s) => s)) out.push(`    ${line}`);
  }
  return out.join("\n") + "\n";
}

export function markdownOf(comparison: Comparison, jstsLine?: string): string {
  const columns = columnsOf(comparison);
  const lines = tableOf(comparison);
  const header = ["section", "tier", "rows", ...columns];
  const names = new Map(comparison.libraries.map((library, i) => [library.name, columns[i]!]));
  const out: string[] = [
    "# Alternative validators against the subset",
    "",
    "<!-- generated by `npm run docs` (tool-conformance validators --format markdown --out docs/validators.md); do not edit by hand -->",
    "",
    `The reference and seven JSON Schema libraries (two of them also as the MCP SDK and LangChain configure them) over the corpus's ${comparison.rows.length} validate and compile rows` +
      (jstsLine ? ` (with ${jstsLine.replace(/^JSON-Schema-Test-Suite: /, "JSON-Schema-Test-Suite tests: ")})` : "") +
      ". A row is agreed when the library's answer matches the row: at the verdict level (valid or not; accepted or refused), " +
      "and at the paths level (the ordered error paths) for libraries whose instance locations convert losslessly to `$` paths. " +
      "Messages are never compared: every library words its own. A library that throws while validating, or crashes compiling, errors the row. " +
      "Instances reach the libraries through `JSON.parse`, so duplicate keys, lone surrogates, deep nesting and numbers beyond float64 " +
      "(`1e400`, `9007199254740993`) are read the way JavaScript reads them; see docs/semantics.md for the reference's choices.",
    "",
    ...markdownTable([["library", "compared at", "how it is called"], ...libraryLines(comparison)]),
    "",
    "## Rows agreed, verdict level",
    "",
    ...markdownTable([header, ...tableRows(comparison, lines, "verdict")]),
    "",
    "## Rows agreed, paths level",
    "",
    "`–`: not compared (the library's instance locations are lossy).",
    "",
    ...markdownTable([header, ...tableRows(comparison, lines, "paths")]),
    "",
  ];
  const differences = comparison.rows.filter((row) => row.id.startsWith("validate/differences/"));
  if (differences.length > 0) {
    out.push(
      "## Differences the spec chooses",
      "",
      "The differential property (test/reference/differential.property.test.ts) checks that the reference and ajv give the same verdict on " +
        "generated schemas inside the subset and arguments near their boundaries. It leaves out what the spec decides differently " +
        "from a JSON.parse-and-ECMA-262 validator; each such difference has a row in conformance/corpus/TestValidateTable/differences.json:",
      "",
      ...differences.map((row) => `- \`${row.id}\` (${row.rule}): ${row.why.replaceAll("|", "\\|")}`),
      "",
    );
  }
  const rules = disagreementsOf(comparison);
  if (rules.length === 0) out.push("## Disagreements by rule", "", `None${noneWhy(comparison)}.`);
  else out.push("## Disagreements by rule", "", "Each rule with the libraries that disagree on at least one of its rows, at the verdict level or (verdict right) at the paths level, with one example.", "");
  for (const rule of rules) {
    out.push(`- **${rule.rule}** (${rule.rows} row${rule.rows === 1 ? "" : "s"})`);
    for (const line of disagreementLines(rule, names, (s) => `\`${s}\``)) out.push(`  - ${line.replaceAll("|", "\\|")}`);
  }
  return out.join("\n") + "\n";
}

/** Why no disagreement is listed: no library to compare, or every one installed agrees. */
function noneWhy(comparison: Comparison): string {
  const installed = comparison.libraries.filter((library) => !library.missing).length;
  return installed === 0 ? ": no library is installed to compare (see the install line above)" : ": every installed library agrees with every row";
}

function pad(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => [...(row[i] ?? "")].length)));
  return table.map((row) => "  " + row.map((text, i) => text + " ".repeat(widths[i]! - [...text].length)).join("  ").trimEnd());
}

