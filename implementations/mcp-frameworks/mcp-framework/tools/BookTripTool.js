import { MCPTool } from "mcp-framework";
import { z } from "zod";

// A nested object, integer bounds, an enum of numbers (zod 3 writes it as a union of literals, as the
// framework's docs do for a closed list); answers its arguments back.
class BookTripTool extends MCPTool {
  name = "book_trip";
  description = "Book seats for a traveler";
  schema = z.object({
    traveler: z.object({
      name: z.string().min(1).describe("The traveler's name"),
      age: z.number().int().min(0).max(120).describe("The traveler's age"),
    }).strict().describe("Who travels"),
    seats: z.number().int().min(1).max(4).optional().describe("How many seats"),
    cabin: z.union([z.literal(1), z.literal(2)]).optional().describe("First or second class"),
  }).strict();

  async execute(input) {
    return input;
  }
}

export default BookTripTool;
