import { compareCodePoints } from "../json/value.js";

/** One step into a value: a property name or an array index. */
export type Segment = string | number;

/** The seed's rendering: `$`, `$.name`, `$.tags[1]`. */
export function formatPath(segments: readonly Segment[]): string {
  let out = "$";
  for (const segment of segments) out += typeof segment === "number" ? `[${segment}]` : `.${segment}`;
  return out;
}

/** The pointer profile's rendering (RFC 6901): ``, `/name`, `/tags/1`. */
export function formatPointer(segments: readonly Segment[]): string {
  return segments.map((segment) => "/" + String(segment).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

export type PathStyle = "dollar" | "pointer";

export function renderPath(segments: readonly Segment[], style: PathStyle): string {
  return style === "pointer" ? formatPointer(segments) : formatPath(segments);
}

/** Sorts by rendered path, then message, in code-point order: the same text on every run. */
export function compareErrors(
  a: { readonly path: string; readonly message: string },
  b: { readonly path: string; readonly message: string },
): number {
  return compareCodePoints(a.path, b.path) || compareCodePoints(a.message, b.message);
}

/**
 * Sorts errors in place by compareErrors, stably. A call reports a handful of errors: below
 * SMALL_SORT an insertion sort spares Array.prototype.sort's fixed cost, several times theirs.
 */
export function sortErrors<T extends { readonly path: string; readonly message: string }>(errors: T[]): T[] {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: both sorts give the same order
  if (errors.length > SMALL_SORT) return errors.sort(compareErrors);
  for (let i = 1; i < errors.length; i++) {
    const error = errors[i]!;
    let j = i - 1;
    for (; j >= 0; j--) {
      // Stryker disable next-line EqualityOperator: passing an equal error reverses a tie, and tied errors print the same text
      if (compareErrors(errors[j]!, error) <= 0) break;
      errors[j + 1] = errors[j]!;
    }
    errors[j + 1] = error;
  }
  return errors;
}

const SMALL_SORT = 16;
