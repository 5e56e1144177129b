import { JsonNumber } from "../../json/number.js";
import { isNumber } from "../../json/value.js";
import { issue } from "../check.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";
import { numberLimit } from "./shapes.js";

/** `minimum`: the number is at least the limit (inclusive, exact). */
export const minimum: Keyword = (value, context) => {
  const limit = numberLimit(value, context);
  return (instance, path, issues) => {
    if (isNumber(instance) && JsonNumber.compare(instance, limit) < 0) {
      issues.push(issue(path, messages.minimum(JsonNumber.literalOf(instance), JsonNumber.literalOf(limit))));
    }
  };
};

/** `maximum`: the number is at most the limit (inclusive, exact). */
export const maximum: Keyword = (value, context) => {
  const limit = numberLimit(value, context);
  return (instance, path, issues) => {
    if (isNumber(instance) && JsonNumber.compare(instance, limit) > 0) {
      issues.push(issue(path, messages.maximum(JsonNumber.literalOf(instance), JsonNumber.literalOf(limit))));
    }
  };
};
