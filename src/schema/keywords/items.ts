import type { Keyword } from "../keyword.js";

/** `items`: every element validates against the schema, at its index. */
export const items: Keyword = (value, context) => {
  const check = context.subschema(value);
  return (instance, path, issues) => {
    if (!Array.isArray(instance)) return;
    for (let i = 0; i < instance.length; i++) {
      path.push(i);
      check(instance[i]!, path, issues);
      path.pop();
    }
  };
};
