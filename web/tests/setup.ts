import { beforeEach, onTestFailed } from 'vitest';
import { liveStackLogs } from '../../infra/testing/start-stack.ts';

// A browser test that fails prints what the server said meanwhile: a run stuck server-side and a
// page that missed its end look the same from the test.
beforeEach(() => {
  onTestFailed(() => {
    for (const logs of liveStackLogs()) console.error(logs);
  });
});
