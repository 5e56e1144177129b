// tool-conformance/harness: the scoring API. Give it a subject and options; it selects the rows,
// runs them, judges them and returns the report, which every reporter renders.
export { scoreSubject as score, rowsFor, SubjectStoppedError, type ScoreSubjectOptions, type SubjectSpec } from "./score-subject.js";
export { UsageError } from "../errors.js";
export type { McpEndpoint } from "../subjects/mcp/client.js";
export type { Report, ReportHeader, ReportRow, ReportSummary } from "../report/report.js";
export { renderMarkdown } from "../report/reporters/markdown.js";
export { renderJUnit } from "../report/reporters/junit.js";
export { writeReport } from "../report/format-report.js";
export { parseReport, readReport } from "../report/read-report.js";
export { TIERS, LEVELS, type Tier, type Level, type ProfileName } from "../corpus/rows.js";
