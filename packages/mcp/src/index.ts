export { createMcpServer, MCP_SERVER_INFO } from "./create-mcp-server.ts";
export { LEARNING_TOOLS, type LearningTool } from "./learning-tools.ts";
