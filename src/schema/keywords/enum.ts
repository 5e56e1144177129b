import { equal, stringify } from "../../json/value.js";
import { issue } from "../check.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/** `enum`: the value equals one of the listed values, numbers by exact value. */
export const enumKeyword: Keyword = (value, context) => {
  if (!Array.isArray(value) || value.length === 0) return context.refuse("a non-empty array");
  const list = stringify(value);
  // a string equals only the same string: one lookup instead of a comparison with each value
  const listed = new Set(value);
  return (instance, path, issues) => {
    // Stryker disable next-line ConditionalExpression: without the lookup, the comparisons below give the same answer
    if (typeof instance === "string" ? listed.has(instance) : value.some((allowed) => equal(instance, allowed))) return;
    issues.push(issue(path, messages.enum(stringify(instance), list)));
  };
};
