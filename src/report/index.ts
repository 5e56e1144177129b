// The public "tool-conformance/report" entry: what a report is, and how to build, sign, write and read one.
// The modules behind it each do one of those jobs; this file only gathers them.
export * from "./report.js";
export * from "./build-report.js";
export * from "./reproduction.js";
export * from "./format-report.js";
export * from "./read-report.js";
export { writeFileAtomic } from "./directory.js";
