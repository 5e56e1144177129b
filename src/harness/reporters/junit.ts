import junitReportBuilder, { type Builder } from "junit-report-builder";
import type { Report } from "../report.js";
import { clip, differences, optionsOf, reasonOf, sectionsOf, subjectLine } from "./common.js";

// JUnit XML (the Jenkins / GitLab / GitHub test-report dialect): one <testsuite> per section,
// one <testcase> per row; a wrong answer is a <failure> carrying expected against actual, a row
// without a usable answer is an <error> carrying its cause and the subject's stderr, a row the
// subject cannot answer is <skipped> (and still counts against the score in the summary).

// the package is CommonJS: Node hands its module.exports (the builder) to a default import,
// while its typings describe an ES default export
const builder = ((junitReportBuilder as unknown as { default?: Builder }).default ?? junitReportBuilder) as unknown as Builder;

export function renderJUnit(report: Report): string {
  const junit = builder.newBuilder();
  junit.name(`tool-conformance: ${report.header.subject.label}`);
  const options = optionsOf(report);
  for (const section of sectionsOf(report)) {
    const suite = junit
      .testSuite()
      .name(section)
      .timestamp(new Date(report.header.startedAt))
      .property("subject", subjectLine(report))
      .property("profile", report.header.profile)
      .property("level", report.header.level)
      .property("tiers", report.header.tiers.join(","));
    const rows = report.rows.filter((row) => row.section === section);
    suite.time(seconds(rows.reduce((sum, row) => sum + row.ms, 0)));
    for (const row of rows) {
      const test = suite
        .testCase()
        .className(`tool-conformance.${section}`)
        .name(row.id)
        .time(seconds(row.ms))
        .property("tier", row.tier)
        .property("rule", row.rule);
      if (row.pitfalls.length) test.property("pitfalls", row.pitfalls.join(","));
      if (row.status === "failed") {
        const detail = differences(row, options, false)
          .map((d) => `${d.what}\n  expected:\n${indent(d.expected)}\n  actual:\n${indent(d.actual)}`)
          .join("\n\n");
        test.failure(clip(reasonOf(row, options), 300), "failed").stacktrace(cdata(detail));
      } else if (row.status === "errored") {
        test.error(clip(row.error ?? "no reply", 300), "errored", row.stderr ? cdata(`subject stderr:\n${row.stderr}`) : undefined);
      } else if (row.status === "skipped") {
        test.skipped().standardOutput(cdata(row.error ?? "not answerable by this subject"));
      }
    }
  }
  return junit.build();
}

/**
 * Text for a CDATA section. The builder (xmlbuilder) splits only the first "]]>" of a text, so a
 * second one would end the section early and break the XML: every "]]>" is written "]] >".
 */
function cdata(text: string): string {
  return text.replaceAll("]]>", "]] >");
}

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
