export function has(need: string): boolean;
export function needs(...what: string[]): { lacking: boolean; tag: string };
export function statedNeeds(name: string): string[] | undefined;
export const MCP_SERVERS_INSTALLED: string;
export const MCP_FRAMEWORKS_INSTALLED: string;
export const MCP_FRAMEWORK_ZOD3_INSTALLED: string;
