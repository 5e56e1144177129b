import { MCPTool } from "mcp-framework";
import { z } from "zod";

// The seed's worked example; answers its arguments back.
class GetWeatherTool extends MCPTool {
  name = "get_weather";
  description = "The weather for a city over the next days";
  schema = z.object({
    city: z.string().min(1).describe("The city"),
    days: z.number().int().min(1).max(7).optional().describe("How many days ahead"),
    unit: z.enum(["c", "f"]).optional().describe("Celsius or Fahrenheit"),
  }).strict();

  async execute(input) {
    return input;
  }
}

export default GetWeatherTool;
