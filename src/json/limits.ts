/** Deeper nesting is refused as malformed: a clear error instead of a stack overflow. */
export const MAX_DEPTH = 1000;
