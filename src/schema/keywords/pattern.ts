import { RE2JS } from "re2js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/**
 * `pattern`: the RE2 expression matches somewhere in the string (unanchored, as
 * JSON Schema says). RE2 matches in linear time: no pattern or input can hang a call.
 */
export const pattern: Keyword = (value, context) => {
  if (typeof value !== "string") return context.refuse("a string");
  let expression: RE2JS;
  try {
    expression = RE2JS.compile(value);
  } catch (error) {
    return context.fail((at) => messages.badPattern(value, at, error instanceof Error ? error.message : String(error)));
  }
  return (instance, at, issues) => {
    if (typeof instance === "string" && !expression.test(instance)) issues.push({ at, message: messages.pattern(instance, value) });
  };
};
