import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One process runs file after file (a two-core machine gets one worker) and keeps the modules it loaded: with
    // isolation each of the 228 files imported the service, store and CLI again. Same commit, same machine, load
    // 1-3: 847 s with isolation (99 s of imports), 656 s without (16 s), 0.77 of the time. Tests therefore leave no
    // global state behind: process.env is restored (test/helpers/cli-inprocess.ts), spies are restored, stores
    // and servers closed.
    isolate: false,
  },
});
