import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The server serves the built files under /console (apps/server/src/http/console-files.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: "/console/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 2048 },
  logLevel: "warn",
});
