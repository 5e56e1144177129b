import type { JsonObject, JsonValue } from "../json/value.js";
import type { Check } from "./check.js";
import type { Members } from "./members.js";
import type { Segment } from "./path.js";

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
