import { expect, it } from 'vitest';

it('runs on the pinned Node 24', () => {
  expect(process.versions.node.split('.')[0]).toBe('24');
});
