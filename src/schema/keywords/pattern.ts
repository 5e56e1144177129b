import { RE2JS } from "re2js";
import { compileECMA, type Expression } from "../ecma.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/**
 * `pattern`: the expression matches somewhere in the string (unanchored, as JSON Schema says).
 * ag02 reads it as RE2, which matches in linear time: no pattern or input can hang a call.
 */
export const pattern: Keyword = patternOf((source) => RE2JS.compile(source));

/** The lesson profile's `pattern`: ECMA-262 with the `u` flag, on RE2 where that is exact (see ecma.ts). */
export const ecmaPattern: Keyword = patternOf(compileECMA);

function patternOf(engine: (source: string) => Expression): Keyword {
  return (value, context) => {
    if (typeof value !== "string") return context.refuse("a string");
    let expression: Expression;
    try {
      expression = engine(value);
    } catch (error) {
      return context.fail((at) => messages.badPattern(value, at, error instanceof Error ? error.message : String(error)));
    }
    return (instance, at, issues) => {
      if (typeof instance === "string" && !expression.test(instance)) issues.push({ at, message: messages.pattern(instance, value) });
    };
  };
}
