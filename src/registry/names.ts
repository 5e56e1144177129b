/** Tool names the contract allows (providers reject the whole request for one bad name). */
export const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The pointer profile's names: lowercase dot-separated segments, at most 64 characters. */
export const DOTTED_NAME_PATTERN = /^(?=.{1,64}$)[a-z0-9_]+(?:\.[a-z0-9_]+)*$/;
