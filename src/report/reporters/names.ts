// The reporters, and the file each writes under --out: shared by score, report and grade.

export const REPORTERS = ["terminal", "json", "junit", "gradescope", "markdown", "html", "github-actions"] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** The file each reporter writes under --out (terminal and github-actions write to stdout). */
export const REPORT_FILES: Record<Exclude<ReporterName, "terminal" | "github-actions">, string> = {
  json: "report.jsonl",
  junit: "junit.xml",
  gradescope: "results.json",
  markdown: "summary.md",
  html: "report.html",
};
