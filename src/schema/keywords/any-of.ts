import type { ValidationError } from "../error.js";
import type { Keyword } from "../keyword.js";
import { issue } from "../check.js";
import { messages } from "../messages.js";

/** `anyOf`: at least one subschema passes; otherwise one error at the value (theirs would only confuse). */
export const anyOf: Keyword = (value, context) => {
  if (!Array.isArray(value) || value.length === 0) return context.refuse("a non-empty array");
  const checks = value.map((schema, i) => context.subschema(schema, i));
  return (instance, path, issues) => {
    const scratch: ValidationError[] = [];
    for (const check of checks) {
      scratch.length = 0;
      check(instance, path, scratch);
      if (scratch.length === 0) return;
    }
    issues.push(issue(path, messages.anyOf()));
  };
};
