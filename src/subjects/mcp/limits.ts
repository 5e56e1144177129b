// Caps on the work probe generation does over what a server lists: every loop over its data
// ends, and nothing it sends decides how deep the code recurses or how much it allocates. A cap
// hit is said in the run's notes; what it governs is not probed (never guessed).

/** JSON nesting (objects and arrays) an inputSchema may have to be judged: deeper, only its root's type is. */
export const MAX_SCHEMA_DEPTH = 64;
/** Characters a generated string may have. */
export const MAX_STRING = 10_000;
/** Elements a generated array may have. */
export const MAX_ITEMS = 1_000;
/** Values of an enum an enum probe looks through. */
export const MAX_ENUM = 10_000;
/** Levels of nested objects probed below the arguments (`a.b.c.d`, an array's element counting as one). */
export const MAX_PROBE_DEPTH = 4;
/** Probes made for one tool. */
export const MAX_PROBES = 2_000;

/** Whether `value` nests deeper than `cap` (walked with a stack of its own, never recursion). */
export function deeperThan(value: unknown, cap: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > cap) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** The nearest double on `direction`'s side of `x` that really differs from it (x - 1 is x at 2^53 and beyond); undefined when that is not finite. */
export function beyond(x: number, direction: 1 | -1): number | undefined {
  if (!Number.isFinite(x)) return undefined;
  // a step of 1 where it is exact, doubled until the sum moves: at most about 1,000 doublings
  for (let step = 1; Number.isFinite(step); step *= 2) {
    const next = x + direction * step;
    if (!Number.isFinite(next)) return undefined;
    if (next !== x) return next;
  }
  return undefined;
}

/** A whole count in [0, cap], or undefined (absent, fractional, negative, or over the cap). */
export function withinCap(value: unknown, cap: number): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= cap ? value : undefined;
}
