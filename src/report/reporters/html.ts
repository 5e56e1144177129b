import { pitfallLabel } from "../../judge/diagnosis.js";
import { flagsOf, type Report, type ReportRow } from "../report.js";
import { LEVELS } from "../../corpus/rows.js";
import { formatPercent, type Tally } from "../../judge/scoring.js";
import { countedRows, countsLine, differences, headline, optionsOf, partsOf, points, reasonInWords, reasonOf, reproLines, sectionsOf, settingsLine, stoppedBeforeAnswers, stoppedText, subjectLine, tiersOf, outputText, OUTPUT_HEADING } from "./common.js";
import { describeWeighting } from "../../judge/weighting.js";
import { clipText, oneLine, utf8Bytes, visible } from "./text.js";
import { CELL_LEGEND, cellMark, mcpToolsOf, type McpToolsView } from "../mcp-tools.js";
import { CONTRACT_CLEAN, CONTRACT_HEADING, CONTRACT_SOURCES, contractOf, type ContractView } from "../mcp-contract.js";

// One self-contained HTML file: no external asset, no network. The diagnosis on top, the scores
// coloured by threshold, then each section as a grid of rows (green passed, red failed, purple
// errored, grey not answerable), the ids of its rows that did not pass, and each such row as a
// <details> element: why it matters, the schema and argument texts (or the registry steps),
// expected against actual, and the command that reruns it. Everything essential is plain HTML, so
// the page reads the same without JavaScript; the small script only opens a row's details when its
// cell is clicked and offers "only rows not passed". Every text is made visible, then escaped.
// The page is capped (default 4 MB): rows past the cap are listed by id, not detailed, with a note.

/** Score colour thresholds, as Stryker's: at or above `high` is good, at or above `low` a warning, below it bad; 100% alone is "all passed". */
export const THRESHOLDS = { high: 80, low: 60 } as const;

/**
 * The colour band of a score: "all" only when no row failed (`notPassed` 0: a percent rounded up
 * to 100 with rows failing is "high"), then "high", "mid" or "low" by percent.
 */
export function band(percent: number, notPassed = 0): "all" | "high" | "mid" | "low" {
  if (percent >= 100 && notPassed === 0) return "all";
  if (percent >= THRESHOLDS.high) return "high";
  if (percent >= THRESHOLDS.low) return "mid";
  return "low";
}

export interface HtmlOptions {
  /** The most bytes of the page (default 4,000,000). */
  maxBytes?: number;
  /** The longest text shown for one value (default 4,000 characters). */
  maxText?: number;
  /** The report.jsonl this run wrote, named for rows not detailed here; none is named when not given. */
  reportFile?: string;
}

export const HTML_MAX_BYTES = 4_000_000;

export function renderHtml(report: Report, options: HtmlOptions = {}): string {
  const maxBytes = options.maxBytes ?? HTML_MAX_BYTES;
  const maxText = options.maxText ?? 4_000;
  const scores = report.summary.scores;
  const t = scores.total;
  const tiers = tiersOf(report);
  const klass = (tally: Tally) => `band-${band(tally.percent, tally.rows - tally.passed)}`;
  const cell = (tally: Tally | undefined) => (tally ? `<td class="${klass(tally)}">${tally.passed}/${tally.rows}</td>` : `<td class="none">·</td>`);
  const rows = countedRows(report);
  const anchor = new Map(rows.map((row, i) => [row, `row-${i + 1}`]));

  const d = report.diagnosis;
  const lines = d.lines.map(oneLine);
  let diagnosis: string;
  if (!d.available) diagnosis = `<p class="muted">${escapeHtml(lines[0] ?? "no diagnosis: the mutants' fingerprints were not available")}</p>`;
  else if (d.matches.length === 0 && (lines.length === 0 || /^no failures/.test(lines[0]!))) diagnosis = `<p class="band-all">No failures: nothing to diagnose.</p>`;
  else {
    const byId = new Map(rows.map((row) => [row.id, row]));
    // each pitfall's sub-points (its detail, the other ways it is wrong, its rows) nested under it
    const items = d.matches.map((m) => {
      const subs = [`<li>${escapeHtml(oneLine(m.detail))}</li>`];
      if (m.extra?.length) subs.push(`<li>wrong in more ways than the pitfall:<ul>${m.extra.map((way) => `<li>${escapeHtml(oneLine(way))}</li>`).join("")}</ul></li>`);
      if (m.rows.length) subs.push(`<li>rows showing it (${m.rows.length}): ${m.rows.slice(0, 20).map((id) => { const row = byId.get(id); const a = row ? anchor.get(row) : undefined; return a ? `<a href="#${a}"><code>${escapeHtml(oneLine(id))}</code></a>` : `<code>${escapeHtml(oneLine(id))}</code>`; }).join(", ")}${m.rows.length > 20 ? `, … and ${m.rows.length - 20} more` : ""}</li>`);
      return `<li><strong>${escapeHtml(oneLine(m.id))}</strong> <span class="muted">${escapeHtml(oneLine(`${pitfallLabel(m.pitfall)}, ${m.title}`))}</span><br>${escapeHtml(oneLine(m.symptom))}<ul class="sub">${subs.join("")}</ul></li>`;
    });
    // the lines after the matches: an indented line belongs to the line above it
    const rest: { line: string; subs: string[] }[] = [];
    for (const raw of d.lines.slice(d.matches.length)) {
      if (/^\s/.test(raw) && rest.length > 0) rest[rest.length - 1]!.subs.push(oneLine(raw.trim()));
      else rest.push({ line: oneLine(raw), subs: [] });
    }
    for (const { line, subs } of rest) items.push(`<li class="warn">${escapeHtml(line)}${subs.length ? `<ul class="sub">${subs.map((sub) => `<li>${escapeHtml(sub)}</li>`).join("")}</ul>` : ""}</li>`);
    diagnosis = `<ul>${items.join("")}</ul>`;
  }

  const stopped = stoppedText(report, maxText);
  const stoppedBox = stopped
    ? `<section class="stopped"><h2>The run stopped</h2><p>${escapeHtml(stopped.cause)}</p>${stopped.stderr ? `<p class="muted">The end of ${escapeHtml(stopped.from)}:</p><pre>${escapeHtml(stopped.stderr)}</pre>` : ""}<p class="muted">Every row it did not answer counts as errored.</p></section>`
    : "";
  const output = outputText(report, maxText);
  const flagsBox = flagsOf(report).map((flag) => `<section class="stopped"><p><strong>${escapeHtml(oneLine(flag))}</strong></p></section>`).join("");
  const outputBox = output ? `<section class="output"><p class="muted">${escapeHtml(OUTPUT_HEADING)}:</p><pre>${escapeHtml(output)}</pre></section>` : "";

  const table = [
    `<table><thead><tr><th>section</th>${tiers.map((tier) => `<th>${tier}</th>`).join("")}<th>rows</th><th>rows passed</th></tr></thead><tbody>`,
    ...sectionsOf(report).map((section) => {
      const s = scores.sections[section]!;
      return `<tr><th><a href="#${section}">${section}</a></th>${tiers.map((tier) => cell(s.tiers[tier])).join("")}${cell(s.total)}<td class="${klass(s.total)}">${formatPercent(s.total.percent)}</td></tr>`;
    }),
    `<tr class="total"><th>all rows</th>${tiers.map((tier) => cell(scores.byTier[tier])).join("")}${cell(t)}<td class="${klass(t)}">${formatPercent(t.percent)}</td></tr>`,
    `</tbody></table>`,
    `<p class="muted">by level: ${LEVELS.map((level) => `${level} ${formatPercent(scores.byLevel[level].percent)}`).join(" · ")}</p>`,
    // rows beyond the shipped corpus (a grader's private rows, generated ones): each part's own score
    ...(partsOf(report).length > 0
      ? [
          `<table class="parts"><thead><tr><th>part</th><th>rows</th><th>rows passed</th></tr></thead><tbody>`,
          ...partsOf(report).map((part) => `<tr><th>${part}</th>${cell(scores.byPart[part])}<td class="${klass(scores.byPart[part]!)}">${formatPercent(scores.byPart[part]!.percent)}</td></tr>`),
          `</tbody></table>`,
        ]
      : []),
    ...(report.summary.weighted && report.header.scoring
      ? [
          `<p class="weighting"><strong>Score ${formatPercent(report.summary.weighted.percent)}</strong>, ${escapeHtml(describeWeighting(report.header.scoring))}; rows passed: ${formatPercent(t.percent)}.</p>`,
          `<table class="points"><thead><tr><th>test</th><th>weight</th><th>rows passed</th><th>points</th></tr></thead><tbody>`,
          ...report.summary.weighted.parts.map((p) => `<tr><th>${p.name === "generated" ? "generated cases" : `<a href="#${p.name}">${p.name}</a>`}</th><td>${p.weight}</td><td>${p.passed}/${p.rows}</td><td class="${p.name === "generated" ? "none" : p.whole ? "band-all" : "band-low"}">${points(p.earned)} / ${points(p.max)}</td></tr>`),
          `</tbody></table>`,
        ]
      : []),
    `<p class="muted bands">score colours: <span class="band-all">every row passed</span> · <span class="band-high">${THRESHOLDS.high}% or more, rows failing</span> · <span class="band-mid">${THRESHOLDS.low}% or more</span> · <span class="band-low">below ${THRESHOLDS.low}%</span></p>`,
  ].join("");

  const tools = stoppedBeforeAnswers(report) ? undefined : mcpToolsOf(report);
  const contract = tools ? contractOf(report, tools) : undefined;
  const toolsBox = tools ? toolsTable(tools, (row) => anchor.get(row)) + (contract ? contractBox(contract, maxText) : "") : "";

  // the details of the rows not passed, in corpus order, while the page stays under its cap
  // a run that stopped before any answer errored every row with one cause, said once above
  const unanswered = stoppedBeforeAnswers(report);
  const failing = unanswered ? [] : rows.filter((row) => row.status !== "passed");
  const details = new Map<ReportRow, string>();
  let budget = maxBytes - 64 * 1024 - utf8Bytes(table + toolsBox + diagnosis + stoppedBox + flagsBox + outputBox) - rows.length * 200;
  for (const row of failing) {
    const block = detailsOf(report, row, anchor.get(row)!, maxText);
    const size = utf8Bytes(block);
    if (size > budget) break;
    details.set(row, block);
    budget -= size;
  }
  const cut = failing.length - details.size;
  const elsewhere = options.reportFile ? `every row is in ${escapeHtml(options.reportFile)}` : "write every row with --reporter json or junit";

  const sections = sectionsOf(report)
    .map((section) => {
      const s = scores.sections[section]!.total;
      const mine = rows.filter((row) => row.section === section);
      const cells = mine
        .map((row) => {
          const title = escapeHtml(`${oneLine(row.id)} (${row.status})`);
          return row.status === "passed" ? `<span class="c passed" title="${title}"></span>` : `<a class="c ${row.status}" href="#${anchor.get(row)}" title="${title}"></a>`;
        })
        .join("");
      const bad = unanswered ? [] : mine.filter((row) => row.status !== "passed");
      const ids = bad.length
        ? `<p class="ids"><strong>not passed (${bad.length}):</strong> ${bad.map((row) => `<a href="#${anchor.get(row)}" class="${row.status}"><code>${escapeHtml(oneLine(row.id))}</code></a>`).join(", ")}</p>`
        : "";
      const blocks = bad.map((row) => details.get(row) ?? "").join("");
      return `<section class="sec" id="${section}"><h2>${section} <small class="${klass(s)}">${s.passed}/${s.rows} · ${formatPercent(s.percent)}</small></h2><div class="grid">${cells}</div>${ids}${blocks}</section>`;
    })
    .join("");
  const cutNote = cut > 0 ? `<p class="note">${cut} of the ${failing.length} rows not passed are listed by id but not detailed: this page is capped at ${maxBytes.toLocaleString("en-US")} bytes; ${elsewhere}.</p>` : "";

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`tool-conformance: ${oneLine(report.header.subject.label)}: ${formatPercent(headline(report))}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>tool-conformance <span class="subject">${escapeHtml(subjectLine(report))}</span> <span class="score band-${band(headline(report), t.rows - t.passed)}">${formatPercent(headline(report))}</span></h1>
<p class="muted">${escapeHtml(settingsLine(report))} · ${escapeHtml(countsLine(t))} · ${escapeHtml(oneLine(report.header.startedAt))} · tool ${escapeHtml(oneLine(report.header.tool.version))}</p>
</header>
${stoppedBox}
${flagsBox}${outputBox}
<section class="diagnosis"><h2>Diagnosis</h2>${diagnosis}</section>
<section class="summary">${table}</section>
${toolsBox}
<p class="legend"><span class="c passed"></span> passed <span class="c failed"></span> failed <span class="c errored"></span> errored <span class="c skipped"></span> not answerable <label id="only-label" hidden><input type="checkbox" id="only"> only rows not passed</label></p>
${cutNote}
<main>${sections}</main>
${cutNote}
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** The tools × checks table of an MCP server, worst first: each failing cell links to the details of the first call that decided it. */
function toolsTable(view: McpToolsView, anchorOf: (row: ReportRow) => string | undefined): string {
  const head = `<tr><th>tool</th>${view.checks.map((check) => `<th title="${escapeHtml(check.pitfalls)}">${escapeHtml(check.title)} <small class="muted">${escapeHtml(check.pitfalls)}</small></th>`).join("")}<th>failing</th></tr>`;
  const body = view.tools.map((tool) => {
    const cells = view.checks.map((check) => {
      const state = tool.cells[check.key];
      const first = tool.failures.find((failure) => failure.column === check.key);
      const a = first ? anchorOf(first.row) : undefined;
      const mark = cellMark(state);
      const title = escapeHtml(first ? `${oneLine(first.row.id)}: ${clipText(oneLine(first.sentence), 300)}` : check.title);
      return `<td class="cell ${state}" title="${title}">${a && (state === "fail" || state === "errored") ? `<a href="#${a}">${mark}</a>` : mark}</td>`;
    });
    return `<tr><th><code>${escapeHtml(oneLine(tool.tool))}</code></th>${cells.join("")}<td class="${tool.failing ? "band-low" : "band-all"}">${tool.failing}</td></tr>`;
  });
  return `<section class="tools"><h2>Tools (${view.tools.length}), worst first</h2><table class="tools"><thead>${head}</thead><tbody>${body.join("")}</tbody></table><p class="muted">${escapeHtml(CELL_LEGEND)}</p></section>`;
}

/** The contract tools/list advertises: a table row a finding, the tool named on its first; every server text escaped. */
function contractBox(contract: ContractView, maxText: number): string {
  const head = `<h2>${escapeHtml(CONTRACT_HEADING)}</h2>`;
  if (contract.tools.length === 0) return `<section class="contract">${head}<p class="band-all">${escapeHtml(CONTRACT_CLEAN)}</p></section>`;
  const body = contract.tools.flatMap((tool) => [
    ...tool.lines.map((line, i) => `<tr class="${line.rule}"><th>${i === 0 ? `<code>${escapeHtml(oneLine(tool.tool))}</code>` : ""}</th><td>${line.where ? `<code>${escapeHtml(oneLine(line.where))}</code>` : ""}</td><td>${escapeHtml(line.words)}${line.quote !== undefined ? ` <code>${escapeHtml(clipText(oneLine(line.quote), maxText))}</code>` : ""}</td></tr>`),
    ...(tool.more > 0 ? [`<tr><th></th><td></td><td class="muted">${tool.more} more findings of this tool, past the report's cap</td></tr>`] : []),
  ]);
  return `<section class="contract">${head}<table class="contract"><thead><tr><th>tool</th><th>where</th><th>finding</th></tr></thead><tbody>${body.join("")}</tbody></table><p class="muted">Each rule and the sentence it follows from: ${escapeHtml(CONTRACT_SOURCES)}.</p></section>`;
}

/** A row not passed, as a <details> element: what reproduces it and what went wrong. */
function detailsOf(report: Report, row: ReportRow, id: string, maxText: number): string {
  const parts: string[] = [];
  const options = optionsOf(report);
  parts.push(
    `<details id="${id}" class="row ${row.status}"><summary><code>${escapeHtml(oneLine(row.id))}</code> <span class="st ${row.status}">${row.status === "skipped" ? "not answerable" : row.status}</span> <span class="muted">${escapeHtml(clipText(reasonInWords(row, options), 200))}</span></summary>`,
  );
  parts.push(`<p class="muted">tier ${row.tier} · rule ${escapeHtml(oneLine(row.rule))}${row.pitfalls.length ? ` · guards ${escapeHtml(row.pitfalls.join(", "))}` : ""} · ${row.ms} ms</p>`);
  const repro = reproLines(row, maxText);
  const rerun = repro.find((line) => line.label === "rerun");
  for (const line of repro) {
    if (line === rerun) continue;
    if (line.label === "why") parts.push(`<p class="why">${escapeHtml(line.text)}</p>`);
    else parts.push(`<h4>${line.label}</h4><pre>${escapeHtml(line.text)}</pre>`);
  }
  if (row.status === "failed") {
    for (const d of differences(row, options, false)) {
      parts.push(`<h4>${escapeHtml(d.what)}</h4><div class="muted">expected</div><pre class="exp">${escapeHtml(clipText(d.expected, maxText))}</pre><div class="muted">actual</div><pre class="act">${escapeHtml(clipText(d.actual, maxText))}</pre>`);
      if (d.note) parts.push(`<p class="muted">${escapeHtml(d.note)}</p>`);
    }
  } else {
    parts.push(`<p>${escapeHtml(reasonOf(row, options))}</p>`);
    if (row.stderr) parts.push(`<h4>subject stderr</h4><pre>${escapeHtml(visible(clipText(row.stderr.trimEnd(), maxText)))}</pre>`);
  }
  if (rerun) parts.push(`<h4>rerun just this row</h4><pre class="cmd">${escapeHtml(rerun.text)}</pre>`);
  parts.push(`</details>`);
  return parts.join("");
}

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const CSS = `
:root{--ok:#1a7f37;--high:#9a6700;--mid:#bc4c00;--bad:#cf222e;--err:#8250df;--skip:#8c959f;--bg:#fff;--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--panel:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--line:#30363d;--panel:#161b22;--ok:#3fb950;--high:#d29922;--bad:#f85149;--err:#a371f7;--mid:#db6d28}}
*{box-sizing:border-box}body{margin:0;padding:1.5rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg);max-width:1200px}
h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.05rem;margin:1.2rem 0 .5rem}h4{margin:.6rem 0 .2rem;font-size:.9rem}.subject{font-weight:400}
.score{float:right;font-size:1.6rem}.band-all{color:var(--ok)}.band-high{color:var(--high)}.band-mid{color:var(--mid)}.band-low{color:var(--bad)}.none,.muted{color:var(--muted)}.warn{color:var(--mid)}
td.band-all,td.band-high,td.band-mid,td.band-low{font-weight:600}
.diagnosis,.stopped{border:1px solid var(--line);border-left:4px solid var(--mid);background:var(--panel);padding:.25rem 1rem;border-radius:6px;margin-top:1rem}
.stopped{border-left-color:var(--err)}
.diagnosis ul{padding-left:1.2rem}.diagnosis ul.sub{margin:.2rem 0;color:var(--muted)}
table.tools td.cell{text-align:center}table.contract th,table.contract td{text-align:left}table.contract tr.stricter td{color:var(--bad)}td.cell.fail,td.cell.errored{color:var(--bad);font-weight:700}td.cell.pass{color:var(--ok)}td.cell.none{color:var(--muted)}.diagnosis li{margin:.4rem 0}
table{border-collapse:collapse;margin-top:1rem}th,td{padding:.25rem .75rem;border-bottom:1px solid var(--line);text-align:right}th:first-child{text-align:left}
tr.total th,tr.total td{font-weight:700}a{color:inherit}
.grid{display:flex;flex-wrap:wrap;gap:3px}
.c{display:inline-block;width:16px;height:16px;border-radius:3px;vertical-align:middle}
.c.passed{background:var(--ok)}.c.failed{background:var(--bad)}.c.errored{background:var(--err)}.c.skipped{background:var(--skip)}
.only .c.passed{display:none}
.legend .c{margin-left:.75rem}.legend label{margin-left:1.5rem}
.ids{margin:.5rem 0}.ids a.failed{color:var(--bad)}.ids a.errored{color:var(--err)}.ids a.skipped{color:var(--muted)}
details.row{border:1px solid var(--line);border-radius:6px;padding:.3rem .75rem;margin:.4rem 0;background:var(--panel)}
details.row>summary{cursor:pointer}details.row:target{outline:2px solid var(--fg)}
.st.failed{color:var(--bad)}.st.errored{color:var(--err)}.st.skipped{color:var(--muted)}
.why{font-style:italic}.note{border-left:4px solid var(--mid);padding-left:.75rem}
pre{white-space:pre-wrap;word-break:break-word;background:var(--bg);border:1px solid var(--line);padding:.5rem;border-radius:4px;margin:.25rem 0 .5rem}
.exp{border-left:4px solid var(--ok)}.act{border-left:4px solid var(--bad)}
`;

// Progressive enhancement only: the page says everything without it. A click on a cell or an id
// opens that row's details; "only rows not passed" hides the green cells.
const SCRIPT = `
(function(){
document.body.classList.add("js");
function open(){var id=decodeURIComponent(location.hash.slice(1));var el=id&&document.getElementById(id);if(el&&el.tagName==="DETAILS"){el.open=true;}}
window.addEventListener("hashchange",open);open();
var label=document.getElementById("only-label"),box=document.getElementById("only");
label.hidden=false;
box.addEventListener("change",function(){document.body.classList.toggle("only",box.checked);});
})();
`;
