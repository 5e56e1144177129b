/** `wanted`, or it with a suffix, so that it names no tool the server lists (a tool listed under it would run). */
export function unlistedName(wanted: string, listed: readonly string[]): string {
  const names = new Set(listed);
  if (!names.has(wanted)) return wanted;
  // n listed names leave one of n + 1 suffixes free
  for (let n = 2; ; n++) if (!names.has(`${wanted}_${n}`)) return `${wanted}_${n}`;
}
