import { pitfallLabel } from "../diagnosis.js";
import { isActive } from "../outcome.js";
import type { Report } from "../report.js";
import { LEVELS } from "../rows.js";
import { formatPercent, type Tally } from "../scoring.js";
import { countsLine, differences, optionsOf, reasonOf, sectionsOf, settingsLine, subjectLine, tiersOf } from "./common.js";

// One self-contained HTML file: no external asset, no network. The diagnosis on top, then each
// section as a grid of rows (green passed, red failed, purple errored, grey not answerable);
// a click on a row shows its expected against actual. Every text is escaped: in markup by
// escapeHtml, in the embedded JSON by escapeScriptJson, and the script only sets textContent.

export function renderHtml(report: Report): string {
  const scores = report.summary.scores;
  const t = scores.total;
  const options = optionsOf(report);
  const tiers = tiersOf(report);
  const klass = (tally: Tally) => (tally.passed === tally.rows ? "ok" : tally.passed === 0 ? "bad" : "mid");
  const cell = (tally: Tally | undefined) => (tally ? `<td class="${klass(tally)}">${tally.passed}/${tally.rows}</td>` : `<td class="none">·</td>`);

  const data = report.rows.map((row) => ({
    id: row.id,
    section: row.section,
    tier: row.tier,
    rule: row.rule,
    pitfalls: row.pitfalls,
    status: row.status,
    ms: row.ms,
    reason: row.status === "passed" ? "" : reasonOf(row, options),
    stderr: row.stderr ?? "",
    diffs: row.status === "failed" ? differences(row, options, false) : [],
    checks: row.checks.map((check) => ({ what: check.what, level: check.level, tier: check.tier, pass: check.pass, counted: isActive(check, options) })),
  }));

  const d = report.diagnosis;
  let diagnosis: string;
  if (!d.available) diagnosis = `<p class="muted">${escapeHtml(d.lines[0] ?? "no diagnosis: the mutants' fingerprints were not available")}</p>`;
  else if (d.failing === 0) diagnosis = `<p class="good">No failures: nothing to diagnose.</p>`;
  else {
    const items = d.matches.map(
      (m) =>
        `<li><strong>${escapeHtml(m.id)}</strong> <span class="muted">${escapeHtml(pitfallLabel(m.pitfall))}, ${escapeHtml(m.title)}</span><br>${escapeHtml(m.symptom)}<br><small class="muted">${escapeHtml(m.detail)}</small></li>`,
    );
    if (d.matches.length === 0 || d.unexplained.length > 0) items.push(`<li class="warn">${escapeHtml(d.lines[d.lines.length - 1]!)}</li>`);
    diagnosis = `<ul>${items.join("")}</ul>`;
  }

  const table = [
    `<table><thead><tr><th>section</th>${tiers.map((tier) => `<th>${tier}</th>`).join("")}<th>total</th><th>score</th></tr></thead><tbody>`,
    ...sectionsOf(report).map((section) => {
      const s = scores.sections[section]!;
      return `<tr><th><a href="#${section}">${section}</a></th>${tiers.map((tier) => cell(s.tiers[tier])).join("")}${cell(s.total)}<td class="${klass(s.total)}">${formatPercent(s.total.percent)}</td></tr>`;
    }),
    `<tr class="total"><th>total</th>${tiers.map((tier) => cell(scores.byTier[tier])).join("")}${cell(t)}<td class="${klass(t)}">${formatPercent(t.percent)}</td></tr>`,
    `</tbody></table>`,
    `<p class="muted">by level: ${LEVELS.map((level) => `${level} ${formatPercent(scores.byLevel[level].percent)}`).join(" · ")}</p>`,
  ].join("");

  const grids = sectionsOf(report)
    .map((section) => {
      const s = scores.sections[section]!.total;
      const cells = report.rows
        .map((row, i) => (row.section === section ? `<button class="c ${row.status}" data-i="${i}" title="${escapeHtml(`${row.id} (${row.status})`)}"></button>` : ""))
        .join("");
      return `<section class="sec" id="${section}"><h2>${section} <small class="${klass(s)}">${s.passed}/${s.rows} · ${formatPercent(s.percent)}</small></h2><div class="grid">${cells}</div></section>`;
    })
    .join("");

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`tool-conformance: ${report.header.subject.label}: ${formatPercent(t.percent)}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>tool-conformance <span class="subject">${escapeHtml(subjectLine(report))}</span> <span class="score ${klass(t)}">${formatPercent(t.percent)}</span></h1>
<p class="muted">${escapeHtml(settingsLine(report))} · ${escapeHtml(countsLine(t))} · ${escapeHtml(report.header.startedAt)} · tool ${escapeHtml(report.header.tool.version)}</p>
</header>
<section class="diagnosis"><h2>Diagnosis</h2>${diagnosis}</section>
<section class="summary">${table}</section>
<p class="legend"><span class="c passed"></span> passed <span class="c failed"></span> failed <span class="c errored"></span> errored <span class="c skipped"></span> not answerable <label><input type="checkbox" id="only"> only rows not passed</label></p>
<div class="layout"><main>${grids}</main>
<aside id="detail"><p class="muted">Click a row to see what was expected and what came back.</p></aside></div>
<script type="application/json" id="data">${escapeScriptJson(JSON.stringify(data))}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** JSON that is safe inside a <script> element: no "</script>", no "<!--", no line separators. */
export function escapeScriptJson(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const CSS = `
:root{--ok:#1a7f37;--bad:#cf222e;--err:#8250df;--skip:#8c959f;--mid:#9a6700;--bg:#fff;--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--panel:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--line:#30363d;--panel:#161b22;--ok:#3fb950;--bad:#f85149;--err:#a371f7;--mid:#d29922}}
*{box-sizing:border-box}body{margin:0;padding:1.5rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.05rem;margin:1.2rem 0 .5rem}.subject{font-weight:400}
.score{float:right;font-size:1.6rem}.ok{color:var(--ok)}.bad{color:var(--bad)}.mid{color:var(--mid)}.none,.muted{color:var(--muted)}.good{color:var(--ok)}.warn{color:var(--mid)}
.diagnosis{border:1px solid var(--line);border-left:4px solid var(--mid);background:var(--panel);padding:.25rem 1rem;border-radius:6px}
.diagnosis ul{padding-left:1.2rem}.diagnosis li{margin:.4rem 0}
table{border-collapse:collapse;margin-top:1rem}th,td{padding:.25rem .75rem;border-bottom:1px solid var(--line);text-align:right}th:first-child{text-align:left}
tr.total th,tr.total td{font-weight:700}a{color:inherit}
.layout{display:flex;gap:1.5rem;align-items:flex-start}main{flex:1;min-width:0}
aside{position:sticky;top:1rem;width:42%;max-height:calc(100vh - 2rem);overflow:auto;border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem;background:var(--panel)}
.grid{display:flex;flex-wrap:wrap;gap:3px}
.c{display:inline-block;width:16px;height:16px;border:0;border-radius:3px;padding:0;cursor:pointer;vertical-align:middle}
.c.passed{background:var(--ok)}.c.failed{background:var(--bad)}.c.errored{background:var(--err)}.c.skipped{background:var(--skip)}
.c.sel{outline:3px solid var(--fg);outline-offset:1px}.only main .c.passed{display:none}
.legend .c{cursor:default;margin-left:.75rem}.legend label{margin-left:1.5rem}
pre{white-space:pre-wrap;word-break:break-word;background:var(--bg);border:1px solid var(--line);padding:.5rem;border-radius:4px;margin:.25rem 0 .75rem}
.exp{border-left:4px solid var(--ok)}.act{border-left:4px solid var(--bad)}
.checks{padding-left:1.1rem}.checks .pass{color:var(--ok)}.checks .fail{color:var(--bad)}.checks .off{color:var(--muted)}
@media (max-width:900px){.layout{display:block}aside{position:static;width:auto;margin-top:1rem}}
`;

// Builds the detail panel with textContent only: nothing from the report becomes markup.
const SCRIPT = `
(function(){
var rows=JSON.parse(document.getElementById("data").textContent);
var panel=document.getElementById("detail"),selected=null;
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
function show(i){
 var r=rows[i];panel.textContent="";
 panel.appendChild(el("h2",null,r.id));
 panel.appendChild(el("p","muted",r.section+" · tier "+r.tier+" · rule "+r.rule+(r.pitfalls.length?" · guards "+r.pitfalls.join(", "):"")+" · "+r.ms+" ms"));
 panel.appendChild(el("p",r.status==="passed"?"good":"bad",r.status));
 if(r.reason&&r.status!=="failed")panel.appendChild(el("p",null,r.reason));
 if(r.stderr){panel.appendChild(el("h3",null,"subject stderr"));panel.appendChild(el("pre",null,r.stderr));}
 r.diffs.forEach(function(d){
  panel.appendChild(el("h3",null,d.what));
  panel.appendChild(el("div","muted","expected"));panel.appendChild(el("pre","exp",d.expected));
  panel.appendChild(el("div","muted","actual"));panel.appendChild(el("pre","act",d.actual));
 });
 if(r.checks.length){
  panel.appendChild(el("h3",null,"checks"));
  var ul=el("ul","checks");
  r.checks.forEach(function(c){ul.appendChild(el("li",c.counted?(c.pass?"pass":"fail"):"off",(c.pass?"✓ ":"✗ ")+c.what+" ("+c.level+", "+c.tier+(c.counted?"":", not counted")+")"));});
  panel.appendChild(ul);
 }
}
document.querySelector("main").addEventListener("click",function(e){
 var b=e.target.closest("button.c");if(!b)return;
 if(selected)selected.classList.remove("sel");selected=b;b.classList.add("sel");show(+b.getAttribute("data-i"));
});
document.getElementById("only").addEventListener("change",function(e){document.body.classList.toggle("only",e.target.checked);});
var first=document.querySelector("button.c.failed,button.c.errored");if(first)first.click();
})();
`;
