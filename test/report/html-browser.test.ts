import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { scoreMcp } from "../../src/harness/score-mcp.js";
import type { Report } from "../../src/report/report.js";
import { escapeHtml, renderHtml } from "../../src/report/reporters/html.js";
import { hostileFixture, type Fixture } from "../helpers/report-fixture.js";

// report.html in a real browser: Debian's chromium, headless (.ci/run installs it). The page is
// loaded as a user opens it, the DOM dumped after its script ran; then again with page scripts
// refused (a Content-Security-Policy of script-src 'none'), as a reader without JavaScript sees it.
// An MCP server's report too: the markup fixture's three tools, one named and answering in markup.

const CHROMIUM = process.env.CHROMIUM ?? "chromium";
let fx: Fixture;
let dir: string;
let page: string;
let mcp: Report;
let mcpPage: string;

/** The fixture's tool named in markup, and its answer's markup (test/fixtures/mcp/markup-server.mjs). */
const HOSTILE = "z<img src=x onerror=alert(1)><b>bold</b>";
const HOSTILE_ANSWER = "<script>alert(1)</script><b>ran</b>";
/** In a copy of the page: every alert() counted, and, once the body is parsed and the page's script ran, what elements it holds. */
const ALERTS = "<script>window.alerts=0;window.alert=function(){window.alerts++;};</script>";
const TALLY = '<script>(function(){var d=document.body.dataset;d.alerts=window.alerts;d.imgs=document.querySelectorAll("img").length;d.bolds=document.querySelectorAll("b").length;d.scripts=document.scripts.length;})();</script>';

beforeAll(async () => {
  fx = await hostileFixture();
  dir = mkdtempSync(join(tmpdir(), "tc-html-"));
  page = renderHtml(fx.report, { reportFile: "reports/report.jsonl" });
  writeFileSync(join(dir, "report.html"), page);
  writeFileSync(join(dir, "nojs.html"), page.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="script-src 'none'">`));
  mcp = await scoreMcp({ command: `${JSON.stringify(process.execPath)} ${JSON.stringify(join(PACKAGE_ROOT, "test", "fixtures", "mcp", "markup-server.mjs"))}` }, { label: "markup-server" });
  mcpPage = renderHtml(mcp, { reportFile: "reports/report.jsonl" });
  writeFileSync(join(dir, "mcp.html"), mcpPage.replace("<head>", `<head>${ALERTS}`).replace("</body>", `${TALLY}</body>`));
  writeFileSync(join(dir, "mcp-nojs.html"), mcpPage.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="script-src 'none'">`));
}, 60_000);

/** The DOM of a page after load, as headless chromium serialises it. */
function dumpDom(file: string, hash = ""): string {
  const profile = mkdtempSync(join(tmpdir(), "tc-chromium-"));
  const args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", `--user-data-dir=${profile}`, "--dump-dom", `${pathToFileURL(join(dir, file)).href}${hash}`];
  const result = spawnSync(CHROMIUM, args, { encoding: "utf8", timeout: 30_000, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`a headless chromium is needed (Debian: chromium; .ci/run installs it): ${result.error.message}`);
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout.length, result.stderr).toBeGreaterThan(1000);
  return result.stdout;
}

const notPassed = () => fx.report.rows.filter((row) => row.status !== "passed");
const idOf = (dom: string, rowId: string) => new RegExp(`<details id="(row-\\d+)" class="row \\w+"[^>]*><summary><code>${rowId.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}</code>`).exec(dom)?.[1];

describe("report.html in headless chromium", () => {
  it("with JavaScript: the script runs, and opening a row's link opens its details", { timeout: 30_000 }, () => {
    const anchor = idOf(page, fx.nul)!;
    expect(anchor).toBeDefined();
    const dom = dumpDom("report.html", `#${anchor}`);
    expect(dom).toMatch(/<body class="js">/);
    expect(dom).toMatch(/<label id="only-label">/);
    expect(dom).toMatch(new RegExp(`<details id="${anchor}" class="row failed" open="">`));
    // the other rows stay folded
    expect(dom.match(/<details [^>]*open=""/g)!.length).toBe(1);
  });

  it("without JavaScript: every row not passed is listed by id per section and detailed in a <details>, the expected against actual there", { timeout: 30_000 }, () => {
    const dom = dumpDom("nojs.html");
    expect(dom).toMatch(/<body>/);
    expect(dom).toMatch(/<label id="only-label" hidden="">/);
    for (const row of notPassed()) {
      expect(dom).toContain(`<code>${row.id}</code></a>`);
      expect(idOf(dom, row.id), row.id).toBeDefined();
    }
    // what a student needs, as the browser parsed it: nothing lost to broken markup
    const start = dom.indexOf(`<details id="${idOf(dom, fx.nul)}"`);
    const details = dom.slice(start, dom.indexOf("</details>", start));
    expect(details).toMatch(/<p class="why">.+<\/p>/);
    expect(details).toMatch(/<h4>schema<\/h4><pre>.+<\/pre>/);
    expect(details).toMatch(/<pre class="act">.*\\u0000<\/pre>/);
    expect(details).toMatch(/<pre class="cmd">tool-conformance score mutant:s06 --tier all --filter /);
    // the hostile text is text, not markup
    expect(dom).not.toContain("<b>bold</b>");
  });
});

/** The per-tool table's body rows as the browser parsed them: the tool's name (as text in the DOM), each cell's state and link, the failing count. */
function toolRows(dom: string): { tool: string; cells: { state: string; href?: string }[]; failing: number }[] {
  const body = /<table class="tools"><thead>[\s\S]*?<\/thead><tbody>([\s\S]*?)<\/tbody><\/table>/.exec(dom)?.[1];
  expect(body, "the page has the per-tool table").toBeDefined();
  return [...body!.matchAll(/<tr><th><code>(.*?)<\/code><\/th>(.*?)<\/tr>/g)].map(([, tool, rest]) => {
    const cells = [...rest!.matchAll(/<td class="cell (\w+)"[^>]*>(?:<a href="#([^"]+)">)?/g)].map(([, state, href]) => ({ state: state!, ...(href ? { href } : {}) }));
    return { tool: tool!, cells, failing: Number(/<td class="band-\w+">(\d+)<\/td>$/.exec(rest!)?.[1]) };
  });
}

/** The <details> of a row by its anchor, as the browser serialised it. */
function detailsAt(dom: string, anchor: string): string {
  const start = dom.indexOf(`<details id="${anchor}"`);
  expect(start, anchor).toBeGreaterThan(0);
  return dom.slice(start, dom.indexOf("</details>", start));
}

/** Text as the DOM serialises it inside an element: &, < and > escaped, quotes as they are. */
const asText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("an MCP server's report.html in headless chromium", () => {
  it("shows the per-tool table, worst tools first (the reverse of their names), every failing cell a link to the details of its call", { timeout: 30_000 }, () => {
    const dom = dumpDom("mcp-nojs.html");
    const rows = toolRows(dom);
    expect(rows.map((row) => [row.tool, row.failing])).toEqual([
      [asText(HOSTILE), 5],
      ["m_half", 1],
      ["a_strict", 0],
    ]);
    // m_half: only its unknown-property cell fails; every failing cell of every tool links to a row's details, there in the page, folded
    expect(rows[1]!.cells.filter((cell) => cell.state === "fail")).toHaveLength(1);
    for (const cell of rows.flatMap((row) => row.cells).filter((c) => c.state === "fail")) {
      expect(cell.href, "a failing cell links to its call").toBeDefined();
      expect(dom).toMatch(new RegExp(`<details id="${cell.href}" class="row failed">`));
    }
    expect(rows.flatMap((row) => row.cells).filter((c) => c.state === "pass").every((c) => c.href === undefined)).toBe(true);
  });

  it("a failing cell opens to the exact tools/call, the answer's text, the verdict and the rule that decided it", { timeout: 30_000 }, () => {
    const cell = toolRows(mcpPage.replaceAll("&quot;", '"').replaceAll("&#39;", "'"))[1]!.cells.find((c) => c.state === "fail")!;
    const dom = dumpDom("mcp.html", `#${cell.href}`);
    expect(dom).toMatch(new RegExp(`<details id="${cell.href}" class="row failed" open="">`));
    expect(dom.match(/<details [^>]*open=""/g)).toHaveLength(1);
    const row = mcp.rows.find((r) => r.id === "mcp/m_half/extra-property")!;
    const call = row.repro!.steps![0]!;
    expect(call).toBe('tools/call {"name":"m_half","arguments":{"q":"a","tool_conformance_extra":"x"}}');
    const details = detailsAt(dom, cell.href!);
    expect(details).toContain("<summary><code>mcp/m_half/extra-property</code>");
    expect(details).toContain(`<h4>steps</h4><pre>${asText(call)}</pre>`);
    // the verdict and what decided it, in words, then the answer as classed: its text, the class, the rule, what the sandbox saw
    expect(details).toContain('the tool ran on {"q":"a","tool_conformance_extra":"x"}: its inputSchema refuses it (additionalProperties: false), so it should have been refused before running');
    expect(details).toMatch(/<pre class="act">\{"ran":true,"answer":"ran","text":"m_half ran with \{\\"q\\":\\"a\\",\\"tool_conformance_extra\\":\\"x\\"\}","rule":"a normal result","observed":"not observed \(no sandbox\)"\}<\/pre>/);
    expect(details).toMatch(/<pre class="exp">\{"ran":false\}<\/pre>/);
  });

  it("a tool named in markup, answering in markup: its name and its answer stay text, nothing runs", { timeout: 30_000 }, () => {
    const cell = toolRows(mcpPage.replaceAll("&quot;", '"').replaceAll("&#39;", "'"))[0]!.cells.find((c) => c.state === "fail")!;
    const dom = dumpDom("mcp.html", `#${cell.href}`);
    // the page's own script, the two probes; no element of the server's, no alert
    expect(dom).toMatch(/<body class="js" data-alerts="0" data-imgs="0" data-bolds="0" data-scripts="3">/);
    const details = detailsAt(dom, cell.href!);
    expect(details).toContain(`<summary><code>${asText(`mcp/${HOSTILE}/`)}`);
    expect(details).toContain(asText(HOSTILE_ANSWER));
    expect(dom).toContain(`<th><code>${asText(HOSTILE)}</code></th>`);
    // as the page wrote it: escaped in text and in attributes alike
    expect(mcpPage).not.toMatch(/<img|<b>|<script>alert/);
    expect(mcpPage).toContain(escapeHtml(HOSTILE));
  });
});

