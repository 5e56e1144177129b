// mcp-framework: an MCPServer that finds its tools in tools/ (one MCPTool class a file, each with a zod
// object schema whose every field is described), on stdio, as its docs teach. The tools sit beside this
// file rather than in a compiled dist/ (they are plain JavaScript), so basePath says where.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { MCPServer } from "mcp-framework";

const server = new MCPServer({ name: "frameworks-mcp-framework", version: "1.0.0", basePath: dirname(fileURLToPath(import.meta.url)) });

await server.start();
