import { createHash } from "node:crypto";
import { markdownCell, markdownProseCell } from "./reporters/inert.js";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pitfallLabel } from "../judge/diagnosis.js";
import type { Report } from "./report.js";
import { escapeHtml, band } from "./reporters/html.js";
import { oneLine } from "./reporters/text.js";
import { formatPercent } from "../judge/scoring.js";

// The class view: what a teacher reads over a whole class's reports (merge writes it into class.md
// and class.html). The score distribution; each mistake the diagnosis named with every student who
// shows it; the rules and rows most students fail; failures no known mistake explains, grouped by
// rule; and pairs of submissions alike by content. Every name and text comes from reports or
// submissions: shown visible and escaped.

export interface Student {
  label: string;
  report: Report;
  /** The headline percent (under the weighting the table uses). */
  percent: number;
}

export interface Mistake {
  id: string;
  pitfall: number | string;
  title: string;
  symptom: string;
  students: string[];
}

export interface Failed {
  /** A rule, or a row id. */
  name: string;
  /** The rule of a row. */
  rule?: string;
  students: string[];
}

export interface Alike {
  a: string;
  b: string;
  /** 0 to 1: shared pieces of text over all pieces of text of the two (Jaccard of token 5-grams). */
  similarity: number;
  identical: boolean;
}

export interface ClassView {
  students: number;
  /** Students by score band: "100%", "90–99.99%", …, "0–9.99%". */
  distribution: { band: string; students: string[] }[];
  median: number;
  mistakes: Mistake[];
  rules: Failed[];
  rows: Failed[];
  /** Rules of failing rows no named mistake explains, each with the students failing them. */
  unexplained: Failed[];
  /** Pairs at or above the threshold, most alike first; undefined when no submissions folder was given. */
  alike?: Alike[];
  /** Submissions compared, and the similarity from which a pair is listed. */
  compared?: { submissions: number; threshold: number; median: number; missing: string[] };
}

const BANDS = [100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0];

export function classView(students: readonly Student[], options: { submissions?: string; threshold?: number } = {}): ClassView {
  const distribution = BANDS.map((low, i) => ({
    band: low === 100 ? "100%" : `${low}–${BANDS[i - 1]! - 0.01}%`,
    students: students.filter((s) => (low === 100 ? s.percent >= 100 : s.percent >= low && s.percent < BANDS[i - 1]!)).map((s) => s.label),
  }));
  const sorted = students.map((s) => s.percent).sort((a, b) => a - b);
  const median = sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;

  const mistakes = new Map<string, Mistake>();
  for (const s of students) {
    for (const m of s.report.diagnosis.matches) {
      const entry = mistakes.get(m.id) ?? { id: m.id, pitfall: m.pitfall, title: m.title, symptom: m.symptom, students: [] };
      entry.students.push(s.label);
      mistakes.set(m.id, entry);
    }
  }
  const rules = new Map<string, Set<string>>();
  const rows = new Map<string, { rule: string; students: Set<string> }>();
  const unexplained = new Map<string, Set<string>>();
  for (const s of students) {
    const options = { level: s.report.header.level, tiers: s.report.header.tiers };
    const lost = new Set(s.report.diagnosis.unexplained);
    for (const row of s.report.rows) {
      // failed rows only: an errored row (a failed build, a subject that stopped) is no evidence of a rule
      // missed; a generated case has no rule of its own to name (its "rule" is its keywords or steps)
      if (row.status !== "failed" || row.part === "fresh") continue;
      // a row the run did not count (no check of its tiers) is no failure of the student's
      if (!options.tiers.includes(row.tier) && !(row.messageTier && options.tiers.includes(row.messageTier))) continue;
      (rules.get(row.rule) ?? rules.set(row.rule, new Set()).get(row.rule)!).add(s.label);
      const r = rows.get(row.id) ?? rows.set(row.id, { rule: row.rule, students: new Set() }).get(row.id)!;
      r.students.add(s.label);
      if (lost.has(row.id)) (unexplained.get(row.rule) ?? unexplained.set(row.rule, new Set()).get(row.rule)!).add(s.label);
    }
  }
  const byCount = (a: Failed, b: Failed) => b.students.length - a.students.length || a.name.localeCompare(b.name);
  const view: ClassView = {
    students: students.length,
    distribution,
    median,
    mistakes: [...mistakes.values()].sort((a, b) => b.students.length - a.students.length || a.id.localeCompare(b.id)),
    rules: [...rules].map(([name, set]) => ({ name, students: [...set] })).sort(byCount),
    rows: [...rows].map(([name, r]) => ({ name, rule: r.rule, students: [...r.students] })).sort(byCount),
    unexplained: [...unexplained].map(([name, set]) => ({ name, students: [...set] })).sort(byCount),
  };
  if (options.submissions !== undefined) {
    const threshold = options.threshold ?? 0.8;
    const { pairs, missing, median: pairMedian } = alikePairs(options.submissions, students.map((s) => s.label));
    view.alike = pairs.filter((p) => p.identical || p.similarity >= threshold);
    view.compared = { submissions: students.length - missing.length, threshold, median: pairMedian, missing };
  }
  return view;
}

/** Files a submission's text is read from: its regular files, hidden entries and caches aside, binary and large files skipped. */
function filesOf(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (folder: string, depth: number) => {
    if (depth > 6) return;
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(".") || name === "__pycache__" || name === "node_modules" || name === "target") continue;
      const path = join(folder, name);
      let stat;
      try {
        stat = lstatSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) walk(path, depth + 1);
      else if (stat.isFile() && stat.size <= 512 * 1024) {
        const bytes = readFileSync(path);
        if (bytes.includes(0)) continue;
        out.push({ path: relative(dir, path), text: bytes.toString("utf8") });
      }
    }
  };
  walk(dir, 0);
  return out;
}

/** A submission's text as a set of hashed token 5-grams (white space and layout do not count). */
function shinglesOf(files: { text: string }[]): Set<string> {
  const set = new Set<string>();
  for (const { text } of files) {
    const tokens = text.match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
    if (tokens.length < 5 && tokens.length > 0) set.add(tokens.join(" "));
    for (let i = 0; i + 5 <= tokens.length; i++) set.add(createHash("sha1").update(tokens.slice(i, i + 5).join("\u0000")).digest("base64").slice(0, 12));
  }
  return set;
}

/** Every pair of the named submissions (subfolders of `root`), most alike first. */
export function alikePairs(root: string, labels: readonly string[]): { pairs: Alike[]; missing: string[]; median: number } {
  const seen = labels.map((label) => {
    const files = filesOf(join(root, label));
    const identity = createHash("sha256").update(files.map((f) => createHash("sha256").update(f.text).digest("hex")).sort().join("\n")).digest("hex");
    return { label, files, identity, shingles: shinglesOf(files) };
  });
  const missing = seen.filter((s) => s.files.length === 0).map((s) => s.label);
  const present = seen.filter((s) => s.files.length > 0);
  const pairs: Alike[] = [];
  for (let i = 0; i < present.length; i++) {
    for (let j = i + 1; j < present.length; j++) {
      const a = present[i]!;
      const b = present[j]!;
      let shared = 0;
      for (const x of a.shingles) if (b.shingles.has(x)) shared++;
      const union = a.shingles.size + b.shingles.size - shared;
      pairs.push({ a: a.label, b: b.label, similarity: union === 0 ? 1 : shared / union, identical: a.identity === b.identity });
    }
  }
  const values = pairs.map((p) => p.similarity).sort((x, y) => x - y);
  const median = values.length === 0 ? 0 : values[Math.floor(values.length / 2)]!;
  pairs.sort((x, y) => Number(y.identical) - Number(x.identical) || y.similarity - x.similarity || x.a.localeCompare(y.a));
  return { pairs, missing, median };
}

const percentOf = (x: number) => `${Math.floor(x * 1000) / 10}%`;

/** The class view in Markdown, after the class table. */
export function viewMarkdown(view: ClassView): string {
  // our own words (mistakes, rules, rows) escaped; the students' names are theirs: shown inert (inert.ts)
  // (a row's name may hold a server's property name: prose, nothing live)
  const cell = markdownProseCell;
  const names = (list: readonly string[]) => list.map(markdownCell).join(", ");
  const out: string[] = ["", "## Scores", "", `${view.students} students; median ${formatPercent(Math.floor(view.median * 100) / 100)}.`, "", "| score | students | who |", "| --- | ---: | --- |"];
  for (const d of view.distribution) if (d.students.length > 0) out.push(`| ${d.band} | ${d.students.length} ${"█".repeat(d.students.length)} | ${names(d.students)} |`);
  out.push("", "## Mistakes", "");
  if (view.mistakes.length === 0) out.push("No known mistake named in any report.");
  else {
    out.push("| mistake | students | who |", "| --- | ---: | --- |");
    for (const m of view.mistakes) out.push(`| **${cell(m.id)}** (${cell(pitfallLabel(m.pitfall))}, ${cell(m.title)}): ${cell(m.symptom)} | ${m.students.length} | ${names(m.students)} |`);
  }
  out.push("", "## Rules most students fail", "");
  if (view.rules.length === 0) out.push("No student fails a row.");
  else {
    out.push("| rule | students | who |", "| --- | ---: | --- |");
    for (const r of view.rules.slice(0, 15)) out.push(`| ${cell(r.name)} | ${r.students.length} | ${names(r.students)} |`);
    out.push("", "| row | rule | students |", "| --- | --- | ---: |");
    for (const r of view.rows.slice(0, 15)) out.push(`| ${markdownCell(r.name)} | ${cell(r.rule ?? "")} | ${r.students.length} |`);
  }
  out.push("", "## Failures no known mistake explains, by rule", "");
  if (view.unexplained.length === 0) out.push("Every failing row is explained by a named mistake (or there is none).");
  else {
    out.push("| rule | students |", "| --- | --- |");
    for (const u of view.unexplained) out.push(`| ${cell(u.name)} | ${names(u.students)} |`);
  }
  if (view.compared) {
    out.push("", "## Submissions alike", "");
    out.push(`${view.compared.submissions} submissions compared by content (token 5-grams, layout aside); pairs at ${percentOf(view.compared.threshold)} similarity or more, for you to look at; the median pair is ${percentOf(view.compared.median)}.${view.compared.missing.length ? ` No files found for: ${names(view.compared.missing)}.` : ""}`, "");
    if (view.alike!.length === 0) out.push("No pair.");
    else {
      out.push("| submission | submission | similarity |", "| --- | --- | ---: |");
      for (const p of view.alike!) out.push(`| ${markdownCell(p.a)} | ${markdownCell(p.b)} | ${p.identical ? "identical files" : percentOf(p.similarity)} |`);
    }
  }
  return out.join("\n") + "\n";
}

export interface HtmlLine {
  label: string;
  cells: string[];
  total: number;
  status: string;
  /** The full status, when the cell is clipped. */
  statusFull: string;
  diagnosis: string;
}

/** A column's short heading: a section by its capitals (TestValidateTable: VT), a part as it is. */
function shortColumn(column: string): string {
  if (!/^Test[A-Z]/.test(column)) return column;
  return column.slice(4).replace(/[^A-Z]/g, "");
}

/** The class page: the table, then the class view; one self-contained file. */
export function viewHtml(columns: readonly string[], lines: readonly HtmlLine[], view: ClassView, note: string): string {
  const e = (text: string) => escapeHtml(oneLine(text));
  const names = (list: readonly string[]) => list.map(e).join(", ");
  // what a teacher reads first (name, total, status, diagnosis) comes first and wraps, so a 1280 px
  // window shows it whole; the per-section figures follow under short headings, named in full below
  const short = columns.map(shortColumn);
  const table = [
    `<table class="class"><thead><tr><th>submission</th><th>total</th><th class="left">status</th><th class="left">diagnosis</th>${columns.map((c, i) => `<th title="${e(c)}">${e(short[i]!)}</th>`).join("")}</tr></thead><tbody>`,
    ...lines.map((l) => `<tr><th class="name">${e(l.label)}</th><td class="total band-${band(l.total)}"><strong>${formatPercent(l.total)}</strong></td><td class="left status" title="${e(l.statusFull)}">${e(l.status)}</td><td class="left diagnosis">${e(l.diagnosis)}</td>${l.cells.map((c) => `<td>${e(c)}</td>`).join("")}</tr>`),
    `</tbody></table>`,
    short.some((c, i) => c !== columns[i]) ? `<p class="muted">${columns.flatMap((c, i) => (short[i] !== c ? [`${e(short[i]!)} ${e(c)}`] : [])).join(" · ")}</p>` : "",
  ].join("");
  const max = Math.max(1, ...view.distribution.map((d) => d.students.length));
  const distribution = `<table class="dist"><tbody>${view.distribution.map((d) => `<tr><th>${e(d.band)}</th><td class="bar"><span style="width:${Math.round((100 * d.students.length) / max)}%"></span></td><td>${d.students.length}</td><td class="left">${names(d.students)}</td></tr>`).join("")}</tbody></table>`;
  const list = (items: Failed[], withRule = false) =>
    `<table><thead><tr><th>${withRule ? "row" : "rule"}</th>${withRule ? "<th>rule</th>" : ""}<th>students</th><th>who</th></tr></thead><tbody>${items.map((r) => `<tr><th><code>${e(r.name)}</code></th>${withRule ? `<td class="left">${e(r.rule ?? "")}</td>` : ""}<td>${r.students.length}</td><td class="left">${names(r.students)}</td></tr>`).join("")}</tbody></table>`;
  const mistakes = view.mistakes.length === 0 ? "<p>No known mistake named in any report.</p>" : `<table><thead><tr><th>mistake</th><th>students</th><th>who</th></tr></thead><tbody>${view.mistakes.map((m) => `<tr><th class="left"><strong>${e(m.id)}</strong> ${e(`${pitfallLabel(m.pitfall)}, ${m.title}`)}<br><small>${e(m.symptom)}</small></th><td>${m.students.length}</td><td class="left">${names(m.students)}</td></tr>`).join("")}</tbody></table>`;
  const alike = !view.compared
    ? ""
    : `<section><h2>Submissions alike</h2><p class="muted">${view.compared.submissions} submissions compared by content (token 5-grams, layout aside); pairs at ${percentOf(view.compared.threshold)} or more, for you to look at; the median pair is ${percentOf(view.compared.median)}.</p>${view.alike!.length === 0 ? "<p>No pair.</p>" : `<table><thead><tr><th>submission</th><th>submission</th><th>similarity</th></tr></thead><tbody>${view.alike!.map((p) => `<tr><th>${e(p.a)}</th><th>${e(p.b)}</th><td class="band-low">${p.identical ? "identical files" : percentOf(p.similarity)}</td></tr>`).join("")}</tbody></table>`}</section>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>tool-conformance: the class</title>
<style>
body{margin:0;padding:1.5rem;font:14px/1.45 system-ui,sans-serif;max-width:1300px;color:#1f2328}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.2rem .6rem;border-bottom:1px solid #d0d7de;text-align:right;vertical-align:top}th:first-child,.left{text-align:left}
.band-all{color:#1a7f37}.band-high{color:#4d7c0f}.band-mid{color:#9a6700}.band-low{color:#cf222e}.muted{color:#656d76}
table.class{width:100%}table.class .name{max-width:12rem;overflow-wrap:anywhere}table.class .status{max-width:14rem;overflow-wrap:anywhere}table.class .diagnosis{min-width:16rem;overflow-wrap:anywhere}table.class .total{white-space:nowrap}
.bar{width:200px}.bar span{display:inline-block;height:12px;background:#57606a;border-radius:2px}
</style></head>
<body>
<h1>tool-conformance: the class</h1>
<p class="muted">${e(note)}</p>
<section><h2>Submissions</h2>${table}</section>
<section><h2>Scores</h2><p>${view.students} students; median ${formatPercent(Math.floor(view.median * 100) / 100)}.</p>${distribution}</section>
<section><h2>Mistakes</h2>${mistakes}</section>
<section><h2>Rules most students fail</h2>${view.rules.length === 0 ? "<p>No student fails a row.</p>" : list(view.rules.slice(0, 15)) + list(view.rows.slice(0, 15), true)}</section>
<section><h2>Failures no known mistake explains, by rule</h2>${view.unexplained.length === 0 ? "<p>Every failing row is explained by a named mistake (or there is none).</p>" : list(view.unexplained)}</section>
${alike}
</body>
</html>
`;
}
