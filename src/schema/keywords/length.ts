import { codePointLength } from "../../json/value.js";
import { issue } from "../check.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";
import { countLimit } from "./shapes.js";

// A string has between half its UTF-16 length (all surrogate pairs) and its whole length in
// code points: when either bound settles the limit, the string need not be counted.

/** `minLength`: the string has at least this many characters (code points). */
export const minLength: Keyword = (value, context) => {
  const limit = countLimit(value, context);
  return (instance, path, issues) => {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: counting gives the same answer (see above)
    if (typeof instance !== "string" || instance.length >= 2 * limit.value) return;
    const length = codePointLength(instance);
    if (length < limit.value) issues.push(issue(path, messages.minLength(limit.text, length)));
  };
};

/** `maxLength`: the string has at most this many characters (code points): "héllo" has 5. */
export const maxLength: Keyword = (value, context) => {
  const limit = countLimit(value, context);
  return (instance, path, issues) => {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: counting gives the same answer (see above)
    if (typeof instance !== "string" || instance.length <= limit.value) return;
    const length = codePointLength(instance);
    if (length > limit.value) issues.push(issue(path, messages.maxLength(limit.text, length)));
  };
};
