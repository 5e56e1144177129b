import type { Row } from "../corpus/rows.js";
import { keywordsOf } from "./model.js";

// A generated case's `why`, for the student who fails it: the rules it tests, in the spec's words
// (seed 000, section 2.2 for the validator, 2.3 for the registry), never a placeholder.

/** What each keyword of the subset requires, as the spec's table says it. */
const KEYWORD_RULES: Record<string, string> = {
  type: "type: the value's JSON type is the named one, or one of a list; integer is a number with no fractional part (3.0 is an integer), and number accepts integers",
  enum: "enum: the value equals one of the listed values; numbers compare by value (1 equals 1.0)",
  const: "const: the value equals the given one; numbers compare by value (1 equals 1.0)",
  properties: "properties: each named property present validates against its schema",
  required: "required: each listed property is present",
  additionalProperties: "additionalProperties: false allows no property outside properties; a schema judges every other property",
  items: "items: every element validates",
  minItems: "minItems, maxItems: the array's length bounds hold",
  maxItems: "minItems, maxItems: the array's length bounds hold",
  minLength: "minLength, maxLength: the length in characters (Unicode code points) is within bounds",
  maxLength: "minLength, maxLength: the length in characters (Unicode code points) is within bounds",
  pattern: "pattern: the regular expression matches somewhere in the string (unanchored)",
  minimum: "minimum, maximum: inclusive bounds",
  maximum: "minimum, maximum: inclusive bounds",
  anyOf: "anyOf: at least one subschema passes",
};

const ANNOTATIONS = new Set(["title", "description", "default", "examples", "$schema"]);

/** The lesson's eight keywords as the lesson lists them, with 2020-12's meaning where the lesson says no more. */
const LESSON_RULES: Record<string, string> = {
  type: "type: string / number / integer / boolean / object / array / null, with no coercion (the string \"42\" is not a number; 3.0 is an integer)",
  properties: "properties: each property present validates against its schema",
  required: "required: each listed property is present",
  enum: "enum: the value is one of the allowed primitive values (1.0 equals 1)",
  minLength: "minLength, maxLength: apply to strings, counting characters (code points)",
  maxLength: "minLength, maxLength: apply to strings, counting characters (code points)",
  pattern: "pattern: an ECMA-262 regex that must match somewhere in the string",
  items: "items: every array element validates",
};

/** The sentence a generated row's `why` carries: the rules its schema or steps test, in words. */
export function generatedWhy(row: Row): string {
  const intro = "A case generated for this run, answered by the reference implementation.";
  if (row.kind === "validate" && row.profiles?.includes("lesson")) {
    const rules = [...new Set(keywordsOf(row.schema).map((k) => LESSON_RULES[k]).filter((r): r is string => r !== undefined))];
    return `${intro} The arguments must pass every rule of the lesson's subset their schema uses: ${rules.length > 0 ? rules.join("; ") : "an empty schema accepts any value"}. Every error has a JSON Pointer path into the input (/a/b/2), and a type error its expected_type (the lesson).`;
  }
  if (row.kind === "validate" || row.kind === "compile") {
    const keywords = keywordsOf(row.schema);
    const outside = keywords.filter((k) => KEYWORD_RULES[k] === undefined && !ANNOTATIONS.has(k));
    if (row.kind === "compile" || outside.length > 0) {
      const named = outside.length > 0 ? ` (${outside.join(", ")})` : "";
      return `${intro} Compile refuses a schema outside the supported subset${named} or malformed: the validator would otherwise accept a schema that promises more than it checks (spec 2.2).`;
    }
    const rules = [...new Set(keywords.map((k) => KEYWORD_RULES[k]).filter((r): r is string => r !== undefined))];
    const paths = "Each violation has a path ($, .name, [i]); when the type is wrong the other keywords of that schema are not checked; errors are sorted by path, then message (spec 2.2).";
    return `${intro} The value must pass every rule of its schema: ${rules.length > 0 ? rules.join("; ") : "an empty schema accepts any value"}. ${paths}`;
  }
  const ops = new Set(row.steps.flatMap((step) => (step.op === "concurrently" ? step.steps.map((s) => s.op) : [step.op])));
  const rules: string[] = [];
  if (ops.has("register")) rules.push("Register refuses a name outside ^[A-Za-z0-9_-]{1,64}$, a duplicate name, and parameters that are not an object schema; a missing schema means {\"type\":\"object\"}");
  if (ops.has("names") || ops.has("definitions")) rules.push("Names and Definitions list the tools sorted by name, with their descriptions");
  if (ops.has("call")) rules.push("Call never panics and always returns a result: an unknown name lists the names that exist, empty arguments mean {}, invalid arguments are an error result and the tool does not run, a tool's panic is recovered, a failure's content starts with \"error: \"");
  return `${intro} ${rules.length > 0 ? rules.join(". ") : "The registry keeps its promises"} (spec 2.3).`;
}
