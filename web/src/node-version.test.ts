import { expect, it } from 'vitest';

it('runs on the Node 24 the repo pins', () => {
  expect(process.versions.node.split('.')[0]).toBe('24');
});
