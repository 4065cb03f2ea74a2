import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../vitest.shared.ts';

export default mergeConfig(baseTestConfig, defineConfig({ test: { testTimeout: 60_000 } }));
