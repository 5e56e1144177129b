/** Exit codes every command keeps (README: "Exit codes"). */
export const EXIT = {
  ok: 0,
  /** Invalid arguments, a score below the threshold, a regression, a mutant not killed. */
  failed: 1,
  /** A usage error, a refused schema, a bad corpus, an unreadable file or report. */
  usage: 2,
  /** The subject could not be started or kept failing. */
  subject: 3,
} as const;

/** A problem the user can fix (a bad option, a file that is not there): one line, never a stack trace; exit 2 from the CLI. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Why a report file could not be written, in words. */
export function writeFailure(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === "EEXIST" || code === "ENOTDIR") return "a file is in the way (it must be a folder)";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "read-only file system";
  if (code === "ENOSPC") return "no space left on the device";
  return error instanceof Error ? error.message : String(error);
}
