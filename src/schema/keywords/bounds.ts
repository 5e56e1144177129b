import { JsonNumber } from "../../json/number.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";
import { numberLimit } from "./shapes.js";

/** `minimum`: the number is at least the limit (inclusive, exact). */
export const minimum: Keyword = (value, context) => {
  const limit = numberLimit(value, context);
  return (instance, at, issues) => {
    if (instance instanceof JsonNumber && instance.compare(limit) < 0) {
      issues.push({ at, message: messages.minimum(instance.literal, limit.literal) });
    }
  };
};

/** `maximum`: the number is at most the limit (inclusive, exact). */
export const maximum: Keyword = (value, context) => {
  const limit = numberLimit(value, context);
  return (instance, at, issues) => {
    if (instance instanceof JsonNumber && instance.compare(limit) > 0) {
      issues.push({ at, message: messages.maximum(instance.literal, limit.literal) });
    }
  };
};
