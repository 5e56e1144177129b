import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { classView, viewHtml, type HtmlLine } from "../../src/report/class-view.js";
import { SECTIONS } from "../../src/corpus/rows.js";
import { needs } from "../helpers/machine.mjs";

// class.html at a teacher's 1280 px: the page laid out by headless chromium at that width, every
// line's name, total, status and diagnosis measured in the browser (inside the window, nothing cut
// off to the right), and a screenshot taken as a person would look at it.

const CHROMIUM = process.env.CHROMIUM ?? "chromium";
const browser = needs(CHROMIUM);
const dir = mkdtempSync(join(tmpdir(), "tc-class-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A class as wide as a real one: every section, two parts, long names, causes and diagnoses. */
function lines(): HtmlLine[] {
  const cells = [...SECTIONS.map(() => "97.22%"), "96.95%", "99%"];
  const people = [
    ["alice", "ok", "no failures"],
    ["bartholomew-the-very-long-submission-folder-name", "stopped: the build failed: exit code 1 (build.log); nothing was scored", "no diagnosis"],
    ["carol", "hung on 14 rows (no answer in time)", "nothing else: every failing row crashed or hung"],
    ["dave", "data race on 2 rows; crashed on 110 rows", "s16 (pitfall 7, empty arguments rejected); s18 (pitfall 2, string length in UTF-8 bytes); s19 (spec §2.2, errors in discovery order); 106 rows unexplained"],
  ];
  return people.map(([label, status, diagnosis], i) => ({ label: label!, cells, total: [100, 0, 76.83, 37][i]!, status: status!, statusFull: status!, diagnosis: diagnosis! }));
}

/** The page laid out at width × 900, with a script that measures each line's four cells; returns what it measured. */
function measure(width: number): { viewport: number; cells: { row: number; cell: string; left: number; right: number }[]; scrollWidth: number } {
  const page = viewHtml([...SECTIONS, "part corpus", "part fresh"], lines(), classView([]), "4 reports; each scored as its report says.");
  const probe = `<script>addEventListener("load",()=>{const out=[];document.querySelectorAll("table.class tbody tr").forEach((tr,row)=>{for(const [cell,sel] of [["name","th.name"],["total","td.total"],["status","td.status"],["diagnosis","td.diagnosis"]]){const r=tr.querySelector(sel).getBoundingClientRect();out.push({row,cell,left:r.left,right:r.right});}});const pre=document.createElement("pre");pre.id="layout";pre.textContent=JSON.stringify({viewport:document.documentElement.clientWidth,scrollWidth:document.querySelector("table.class").getBoundingClientRect().right,cells:out});document.body.append(pre);});</script>`;
  writeFileSync(join(dir, "class.html"), page.replace("</body>", `${probe}</body>`));
  const args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars", `--user-data-dir=${mkdtempSync(join(dir, "profile-"))}`, `--window-size=${width},900`];
  const url = pathToFileURL(join(dir, "class.html")).href;
  const dom = spawnSync(CHROMIUM, [...args, "--dump-dom", url], { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  expect(dom.status, dom.stderr).toBe(0);
  const shot = spawnSync(CHROMIUM, [...args, `--screenshot=${join(dir, "class.png")}`, url], { encoding: "utf8", timeout: 60_000 });
  expect(shot.status, shot.stderr).toBe(0);
  expect(statSync(join(dir, "class.png")).size).toBeGreaterThan(10_000);
  const json = /<pre id="layout">([^<]*)<\/pre>/.exec(dom.stdout)?.[1];
  expect(json, "the measuring script ran").toBeDefined();
  return JSON.parse(json!.replaceAll("&quot;", '"').replaceAll("&amp;", "&")) as ReturnType<typeof measure>;
}

describe("class.html at 1280 px", () => {
  it.skipIf(browser.lacking)(`shows every student's name, total, status and diagnosis inside the window ${browser.tag}`, { timeout: 120_000 }, () => {
    const { viewport, cells } = measure(1280);
    expect(viewport).toBeGreaterThan(1200);
    expect(cells).toHaveLength(4 * 4);
    const outside = cells.filter((c) => c.left < 0 || c.right > viewport || c.right - c.left < 20);
    expect(outside).toEqual([]);
    // the page as a person sees it is there for a look (a PNG of the window)
    expect(readFileSync(join(dir, "class.png")).subarray(1, 4).toString()).toBe("PNG");
  });
});
