import type { Report } from "../report/report.js";
import { SubjectError } from "../subjects/subject.js";

/** The subject could not start, or kept failing: the report of what it answered is attached. */
export class SubjectStoppedError extends SubjectError {
  constructor(
    message: string,
    readonly report: Report,
  ) {
    super(message);
  }
}
