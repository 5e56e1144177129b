import { issue } from "../check.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";
import { countLimit } from "./shapes.js";

/** `minItems`: the array has at least this many elements. */
export const minItems: Keyword = (value, context) => {
  const limit = countLimit(value, context);
  return (instance, path, issues) => {
    if (Array.isArray(instance) && instance.length < limit.value) {
      issues.push(issue(path, messages.minItems(limit.text, instance.length)));
    }
  };
};

/** `maxItems`: the array has at most this many elements. */
export const maxItems: Keyword = (value, context) => {
  const limit = countLimit(value, context);
  return (instance, path, issues) => {
    if (Array.isArray(instance) && instance.length > limit.value) {
      issues.push(issue(path, messages.maxItems(limit.text, instance.length)));
    }
  };
};
