import { ERROR_PREFIX } from "../schema/messages.js";
import type { ToolMessage } from "./wire.js";

/** What a call produced. `content` has no prefix; the message adds `error: ` for a failure. */
export class Result {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly content: string,
    readonly isError: boolean,
  ) {}

  /** The tool message that answers the call. */
  message(): ToolMessage {
    return { role: "tool", tool_call_id: this.callId, content: this.isError ? ERROR_PREFIX + this.content : this.content };
  }
}
