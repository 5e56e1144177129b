import type { Keyword } from "../keyword.js";

/** `items`: every element validates against the schema, at its index. */
export const items: Keyword = (value, context) => {
  const check = context.subschema(value);
  return (instance, path, issues) => {
    if (!Array.isArray(instance)) return;
    // one segment for the index, rewritten for each element: cheaper than a push and a pop each
    const last = path.push(0) - 1;
    for (let i = 0; i < instance.length; i++) {
      path[last] = i;
      check(instance[i]!, path, issues);
    }
    path.pop();
  };
};
