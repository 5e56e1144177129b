import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "./directory.js";
import { KeyFileError, REPORT_FORMAT, REPORT_VERSION, SIGNATURE_ALGORITHM, SIGNED_REPORT_VERSION, type Report, type ReportSignature, type RunMarker } from "./report.js";

// A report as JSON Lines text, signed with the grader's key when one is given, written whole.

export interface SignOptions {
  /** The grader's key (readKeyFile): the report is signed with it. */
  key?: Uint8Array;
}

/** The report as JSON Lines text (one object a line, the footer last; with a key, a signature line after it). */
export function formatReport(report: Report, options: SignOptions = {}): string {
  // the version says whether a signature line follows: never claim one that is not there
  const formatVersion = options.key ? SIGNED_REPORT_VERSION : Math.min(report.header.formatVersion, REPORT_VERSION);
  const header = formatVersion === report.header.formatVersion ? report.header : { ...report.header, formatVersion };
  const lines = [header, ...report.rows, report.diagnosis, report.summary, report.footer].map((line) => JSON.stringify(line));
  const body = lines.join("\n") + "\n";
  if (!options.key) return body;
  const signature: ReportSignature = { kind: "signature", algorithm: SIGNATURE_ALGORITHM, mac: macOf(Buffer.from(body, "utf8"), options.key) };
  return body + JSON.stringify(signature) + "\n";
}

/** Writes the report atomically: a reader sees the whole report or none. */
export function writeReport(path: string, report: Report, options: SignOptions = {}): void {
  writeFileAtomic(path, formatReport(report, options));
}

/**
 * Replaces whatever report `path` held with a one-line "started" marker, before a run: if the run
 * never ends (killed, a machine lost), readers find "incomplete", not an earlier run's report.
 */
export function markRunStarted(path: string, startedAt: string): void {
  const marker: RunMarker = { kind: "started", format: REPORT_FORMAT, startedAt, note: "a run is under way or was interrupted: this file is replaced by its report when it ends" };
  writeFileAtomic(path, JSON.stringify(marker) + "\n");
}

/** HMAC-SHA256 of `bytes` under `key`, in lowercase hex. */
export function macOf(bytes: Uint8Array, key: Uint8Array): string {
  return createHmac("sha256", key).update(bytes).digest("hex");
}

/** Keys shorter than this are refused: a guessable key signs nothing. */
export const MIN_KEY_BYTES = 16;

/**
 * Reads a signing key: the file's bytes, less trailing whitespace (the newline an editor or
 * `openssl rand -hex 32 > key` leaves). A missing, unreadable, empty or short key file is a
 * KeyFileError naming it: signing with nothing would look safe and be worthless.
 */
export function readKeyFile(path: string, flag = "--key"): Uint8Array {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EISDIR" ? "a folder, not a file" : (code ?? String(error));
    throw new KeyFileError(`${flag} ${path}: cannot read the key file (${why})`);
  }
  let end = bytes.length;
  while (end > 0 && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[end - 1]!)) end--;
  const key = bytes.subarray(0, end);
  if (key.length === 0) throw new KeyFileError(`${flag} ${path}: the key file is empty; put at least ${MIN_KEY_BYTES} random bytes in it (e.g. openssl rand -hex 32 > ${path})`);
  if (key.length < MIN_KEY_BYTES) throw new KeyFileError(`${flag} ${path}: the key is ${key.length} bytes; use at least ${MIN_KEY_BYTES} random bytes (e.g. openssl rand -hex 32 > ${path})`);
  return key;
}
