import type { Segment } from "./path.js";
import { ValidationError } from "./error.js";
import type { JsonValue } from "../json/value.js";

// What a compiled schema is made of: checks, each reporting the violations it finds as issues.

/**
 * A compiled keyword: checks one value, appending each violation it finds to `issues`. `path` leads from
 * the root to the value; a check that steps into a part pushes its segment and pops it after,
 * so a valid value is checked without building any path at all.
 */
export type Check = (value: JsonValue, path: Segment[], issues: ValidationError[]) => void;

/** The check of a keyword that checks nothing where it stands. */
export const NOTHING: Check = () => {};

/** A violation at the value `path` leads to (a copy: the path goes on changing). */
export function issue(path: readonly Segment[], message: string, expectedType?: string): ValidationError {
  return new ValidationError(path.slice(), message, expectedType);
}
