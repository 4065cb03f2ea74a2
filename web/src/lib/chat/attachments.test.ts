import { describe, expect, it } from 'vitest';
import { attachmentProblem, attachmentsOf, fileSize, messageFiles } from './attachments.ts';

describe('attachments', () => {
  it("reads a question's files from its parts, in order, leaving out any file that is not one of ours", () => {
    expect(
      messageFiles([
        { type: 'file', mediaType: 'image/png', filename: 'map.png', url: 'agentq-file:fil_1' },
        { type: 'text', text: 'Where?' },
        { type: 'file', mediaType: 'image/png', url: 'https://example.test/elsewhere.png' },
        { type: 'file', mediaType: 'application/pdf', url: 'agentq-file:fil_2' },
      ]),
    ).toEqual([
      { id: 'fil_1', name: 'map.png', mediaType: 'image/png' },
      { id: 'fil_2', name: 'file', mediaType: 'application/pdf' },
    ]);
  });

  it('refuses a file too big for its kind before it is uploaded', () => {
    expect(attachmentProblem({ type: 'image/png', size: 5 * 1024 * 1024 })).toBeUndefined();
    expect(attachmentProblem({ type: 'image/webp', size: 5 * 1024 * 1024 + 1 })).toBe('imageTooBig');
    expect(attachmentProblem({ type: 'application/pdf', size: 10 * 1024 * 1024 })).toBeUndefined();
    expect(attachmentProblem({ type: 'application/pdf', size: 10 * 1024 * 1024 + 1 })).toBe('pdfTooBig');
    expect(attachmentProblem({ type: '', size: 512 * 1024 + 1 })).toBe('textTooBig');
  });

  it('sizes a file the way its chip shows it, and names uploaded files in a run body', () => {
    expect([12, 1_234, 340_000, 1_250_000].map(fileSize)).toEqual(['12 B', '1.2 KB', '340 KB', '1.3 MB']);
    expect(attachmentsOf([])).toEqual({});
    expect(attachmentsOf([{ id: 'fil_1', name: 'a', mediaType: 'text/plain', size: 1, createdAt: '' }])).toEqual({ attachments: ['fil_1'] });
  });
});
