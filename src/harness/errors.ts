/** A problem the user can fix (a bad option, a file that is not there): one line, never a stack trace; exit 2 from the CLI. */
export class UsageError extends Error {
  override name = "UsageError";
}
