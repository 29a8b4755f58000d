#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/cli (built from src/cli by `npm run build`, which `npm install` runs).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// A reader that stops early (`lotwise --help | head`) closes the pipe: that is the end of the output, not an error.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });

const entry = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli", "main.js");
if (!existsSync(entry)) {
  process.stderr.write(
    "lotwise: dist/ is missing. Run `npm install` (or `npm run build`) in the lotwise folder first.\n",
  );
  process.exit(1);
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv);
