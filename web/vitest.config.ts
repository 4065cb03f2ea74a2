import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../vitest.shared.ts';

// Kept apart from vite.config.ts so unit and browser tests run without the SvelteKit plugin. The plain
// Svelte plugin stays: it compiles runes in `*.svelte.ts` modules (the i18n catalog's `$state`), which
// unit-tested helpers import.
export default mergeConfig(
  baseTestConfig,
  defineConfig({
    plugins: [svelte()],
    test: {
      include: ['tests/**/*.e2e.test.ts', 'src/**/*.test.ts'],
      testTimeout: 60_000,
      setupFiles: ['tests/setup.ts'],
      fileParallelism: false,
      // Browser tests poll a real UI fed by real servers; vitest's default second for expect.poll
      // is tight when CI's two cores are busy (a poll with its own timeout keeps it).
      expect: { poll: { timeout: 10_000 } },
    },
  }),
);
