import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { markdownCell, markdownProse, markdownProseCell, markdownText } from "../../src/report/reporters/inert.js";
import { viewMarkdown, type ClassView } from "../../src/report/class-view.js";

// Markdown a server's words reach is rendered offline, as GitHub would, with a linkifier standing
// in for GitHub's autolinks (bare https://, www., e-mail), and read for anything live: a link, an
// image, HTML of the server's, or an @mention, #123 or GH-123 outside code (GitHub links those in
// text, whatever backslash stood before them, never in code).

const md = new MarkdownIt({ html: true, linkify: true });

/** What a reader would see live in rendered HTML: links, images, bold tags, mentions and refs outside code. */
function liveIn(html: string): string[] {
  const outsideCode = html.replace(/<pre>[\s\S]*?<\/pre>/g, "").replace(/<code>[\s\S]*?<\/code>/g, "");
  const live: string[] = [];
  for (const pattern of [/<a[\s>]/g, /<img/g, /<b>/g, /(?<![\w`])@[a-z0-9]/gi, /#\d/g, /\bGH-\d/gi, /evil\.example/g]) {
    for (const m of outsideCode.matchAll(pattern)) live.push(outsideCode.slice(Math.max(0, m.index - 40), m.index + 40));
  }
  return live;
}

const BAIT = "see https://evil.example/x or www.evil.example, mail a@evil.example, ping @octocat about #123 and GH-456 <b>bold</b> [x](https://evil.example/l) ![i](https://evil.example/i.png) `tick``s` |pipe|";

describe("inert Markdown", () => {
  it("the liveness check finds live text in bare Markdown (the check can fail)", () => {
    expect(liveIn(md.render(BAIT)).length).toBeGreaterThan(5);
  });

  it("a subject's text as a code span, a cell, prose and a prose cell renders nothing live, every character kept", () => {
    for (const render of [markdownText, markdownProse]) {
      const html = md.render(`a line: ${render(BAIT)}`);
      expect(liveIn(html)).toEqual([]);
    }
    for (const render of [markdownCell, markdownProseCell]) {
      const html = md.render(`| h | h2 |\n| --- | --- |\n| ${render(BAIT)} | x |\n`);
      expect(liveIn(html)).toEqual([]);
      // one cell, the pipes inside it kept
      expect(html).toContain("<td>x</td>");
      expect(html.match(/<td>/g)).toHaveLength(2);
    }
  });

  it("backticks inside a code span neither close it early nor vanish", () => {
    for (const text of ["`", "``a`", "a`", "`a`", "x ``` y", "`tick``s`"]) {
      const html = md.renderInline(markdownText(text));
      expect(html).toBe(`<code>${text}</code>`);
    }
  });

  it("our prose keeps its plain words as text", () => {
    expect(md.renderInline(markdownProse("refused before the tool runs: a *b* _c_ [d] 3.5"))).toBe("refused before the tool runs: a *b* _c_ [d] 3.5");
  });

  it("the class view's rule and row names, from reports of a server, render nothing live", () => {
    const failed = { name: "mcp/lookup/wrong-type/@octocat/https://evil.example/p #12", rule: "www.evil.example GH-9", students: ["a@evil.example"] };
    const view: ClassView = { students: 1, distribution: [{ band: "100%", students: ["@octocat"] }], median: 1, mistakes: [], rules: [failed], rows: [failed], unexplained: [failed] };
    expect(liveIn(md.render(viewMarkdown(view)))).toEqual([]);
  });

  it("summary.md of a hostile MCP server (links, mentions and refs in its property names and answers) renders nothing live", { timeout: 120_000 }, () => {
    const out = mkdtempSync(join(tmpdir(), "tc-inert-"));
    const server = join(PACKAGE_ROOT, "test/fixtures/hostile-mcp/text-links.mjs");
    const run = spawnSync(process.execPath, [join(PACKAGE_ROOT, "dist/cli/main.js"), "score", "--mcp", `node ${server}`, "--reporter", "markdown", "--out", out], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(1);
    const summary = readFileSync(join(out, "summary.md"), "utf8");
    // the server's words are there, shown
    expect(summary).toContain("@octocat");
    expect(summary).toContain("https://evil.example/p");
    expect(liveIn(md.render(summary))).toEqual([]);
  });
});
