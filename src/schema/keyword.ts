import type { JsonObject, JsonValue } from "../json/value.js";
import type { Location, Segment } from "./path.js";

/** A violation found while validating, before it is turned into a ValidationError. */
export interface Issue {
  readonly at: Location | undefined;
  readonly message: string;
  /** Set by `type` on a mismatch: the type (or types) the schema expected. */
  readonly expectedType?: string;
}

/** A compiled keyword: checks one value, appending what it finds to `issues`. */
export type Check = (value: JsonValue, at: Location | undefined, issues: Issue[]) => void;

/** What a keyword sees while it compiles. */
export interface CompileContext {
  /** The schema object that holds the keyword (for siblings such as `properties`). */
  readonly schema: JsonObject;
  /** Compiles a subschema found under this keyword, at the given steps below it. */
  subschema(value: JsonValue, ...steps: Segment[]): Check;
  /** Resolves a `$ref` (lesson profile): a check that runs the referenced schema; a ref that does not resolve is refused. */
  reference(ref: string): Check;
  /** Refuses the keyword's value: `"minLength" at # must be SHAPE`. */
  refuse(shape: string): never;
  /** Refuses the schema with a message of the keyword's own. */
  fail(message: (at: string) => string): never;
}

/** One keyword of the subset: turns its value into a Check, or refuses it. */
export type Keyword = (value: JsonValue, context: CompileContext) => Check;

/** Steps one level down from `at`. */
export function child(at: Location | undefined, segment: Segment): Location {
  return { parent: at, segment };
}
