// The wire types of the contract, in the OpenAI-subset JSON shapes.

/** A tool as the model sees it. `parameters` is a JSON Schema object. */
export interface ToolDef {
  name: string;
  description: string;
  parameters: unknown;
}

/** A call the model wrote: `arguments` is raw JSON text, untrusted. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The message that answers a call. */
export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}
