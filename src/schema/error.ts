import { formatPath, type Segment } from "./path.js";

/** One violation: where it is in the value, and what is wrong. `String(error)` is "PATH: message". */
export class ValidationError {
  readonly path: string;

  constructor(
    readonly segments: readonly Segment[],
    readonly message: string,
    /** The type the schema expected, on a `type` mismatch only (the lesson's expected_type); "a or b" for a list. */
    readonly expectedType?: string,
  ) {
    this.path = formatPath(segments);
  }

  toString(): string {
    return `${this.path}: ${this.message}`;
  }
}
