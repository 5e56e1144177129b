import { CorpusError } from "../corpus/load.js";
import { ReportError } from "../report/report.js";
import { EXIT, UsageError } from "../errors.js";
import { SubjectError } from "../subjects/subject.js";

export { EXIT, UsageError, writeFailure } from "../errors.js";

/** Turns any error into one line for stderr, and the exit code it means. */
export function explain(error: unknown): { line: string; code: number } {
  if (error instanceof SubjectError) return { line: error.message, code: EXIT.subject };
  if (error instanceof UsageError || error instanceof CorpusError || error instanceof ReportError) return { line: error.message, code: EXIT.usage };
  const code = (error as { code?: string }).code;
  if (code === "ENOENT" || code === "EACCES" || code === "EISDIR") {
    const path = (error as { path?: string }).path ?? "";
    const reason = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a folder, not a file" : "permission denied";
    return { line: `${path}: ${reason}`, code: EXIT.usage };
  }
  // commander's own usage errors carry their exit code
  if (typeof (error as { exitCode?: unknown }).exitCode === "number") return { line: "", code: EXIT.usage };
  return { line: `internal error: ${error instanceof Error ? error.message : String(error)}`, code: EXIT.usage };
}
