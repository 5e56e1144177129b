import { RE2JS } from "re2js";
import { compileECMA } from "../ecma.js";
import type { Expression } from "../linear.js";
import { issue } from "../check.js";
import type { Keyword } from "../keyword.js";
import { linear } from "../linear.js";
import { messages } from "../messages.js";

/**
 * `pattern`: the expression matches somewhere in the string (unanchored, as JSON Schema says).
 * ag02 reads it as RE2, which matches in linear time: no pattern or input can hang a call.
 */
export const pattern: Keyword = patternOf((source) => {
  // re2js compiles it first, so a pattern it refuses is refused as before, with its message
  const re2 = RE2JS.compile(source);
  return linear(source) ?? re2;
});

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
    return (instance, path, issues) => {
      if (typeof instance === "string" && !expression.test(instance)) issues.push(issue(path, messages.pattern(instance, value)));
    };
  };
}
