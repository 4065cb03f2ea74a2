import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../vitest.shared.ts';

// Kept apart from vite.config.ts so unit and browser tests run without the SvelteKit plugin.
export default mergeConfig(
  baseTestConfig,
  defineConfig({
    test: {
      include: ['tests/**/*.e2e.test.ts', 'src/**/*.test.ts'],
      testTimeout: 60_000,
      fileParallelism: false,
    },
  }),
);
