import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/reporters/html.js";
import { hostileFixture, type Fixture } from "../helpers/report-fixture.js";

// report.html in a real browser: Debian's chromium, headless (.ci/run installs it). The page is
// loaded as a user opens it, the DOM dumped after its script ran; then again with page scripts
// refused (a Content-Security-Policy of script-src 'none'), as a reader without JavaScript sees it.

const CHROMIUM = process.env.CHROMIUM ?? "chromium";
let fx: Fixture;
let dir: string;
let page: string;

beforeAll(async () => {
  fx = await hostileFixture();
  dir = mkdtempSync(join(tmpdir(), "tc-html-"));
  page = renderHtml(fx.report, { reportFile: "reports/report.jsonl" });
  writeFileSync(join(dir, "report.html"), page);
  writeFileSync(join(dir, "nojs.html"), page.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="script-src 'none'">`));
});

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
