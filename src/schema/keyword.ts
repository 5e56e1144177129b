import type { JsonObject, JsonValue } from "../json/value.js";
import { ValidationError } from "./error.js";
import type { Members } from "./members.js";
import type { Segment } from "./path.js";

/**
 * A compiled keyword: checks one value, appending each violation it finds to `issues`. `path` leads from
 * the root to the value; a check that steps into a part pushes its segment and pops it after,
 * so a valid value is checked without building any path at all.
 */
export type Check = (value: JsonValue, path: Segment[], issues: ValidationError[]) => void;

/** What a keyword sees while it compiles. */
export interface CompileContext {
  /** The schema object that holds the keyword (for siblings such as `properties`). */
  readonly schema: JsonObject;
  /** Compiles a subschema found under this keyword, at the given steps below it. */
  subschema(value: JsonValue, ...steps: Segment[]): Check;
  /** The schema's member keywords' shared pass over an object's members (see members.ts). */
  members(): Members;
  /** Resolves a `$ref` (lesson profile): a check that runs the referenced schema; a ref that does not resolve is refused. */
  reference(ref: string): Check;
  /** Refuses the keyword's value: `"minLength" at # must be SHAPE`. */
  refuse(shape: string): never;
  /** Refuses the schema with a message of the keyword's own. */
  fail(message: (at: string) => string): never;
}

/** One keyword of the subset: turns its value into a Check (NOTHING when it only tells the schema's Members), or refuses it. */
export type Keyword = (value: JsonValue, context: CompileContext) => Check;

/** The check of a keyword that checks nothing where it stands. */
export const NOTHING: Check = () => {};

/** A violation at the value `path` leads to (a copy: the path goes on changing). */
export function issue(path: readonly Segment[], message: string, expectedType?: string): ValidationError {
  return new ValidationError(path.slice(), message, expectedType);
}
