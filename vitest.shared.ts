import { defineConfig } from 'vitest/config';

/** Shared vitest settings: real services are slow to start, so give hooks room; run files serially per package on 2 cores. */
export const baseTestConfig = defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    globalSetup: [new URL('./infra/testing/global-setup.ts', import.meta.url).pathname],
  },
});
