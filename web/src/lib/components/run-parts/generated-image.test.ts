import { describe, expect, it } from 'vitest';
import { generatedImageOf } from './generated-image.ts';

describe('generatedImageOf', () => {
  it('shows a chat file through the chat file route, opened at full size by its link', () => {
    expect(generatedImageOf({ image: { sessionId: 'ses_1', fileId: 'fil_2', prompt: 'a fox' } })).toEqual({ src: '/api/sessions/ses_1/files/fil_2', href: '/api/sessions/ses_1/files/fil_2', prompt: 'a fox' });
  });

  it('shows an inline PNG, JPEG or WebP data URL, and nothing else', () => {
    expect(generatedImageOf({ image: { dataUrl: 'data:image/png;base64,iVBORw0KGgo=', prompt: 'x' } })).toEqual({ src: 'data:image/png;base64,iVBORw0KGgo=', prompt: 'x' });
    expect(generatedImageOf({ image: { dataUrl: 'data:image/svg+xml;base64,PHN2Zz4=' } })).toBeUndefined();
    expect(generatedImageOf({ image: { dataUrl: 'javascript:alert(1)' } })).toBeUndefined();
    expect(generatedImageOf({ statusCode: 200 })).toBeUndefined();
    expect(generatedImageOf(undefined)).toBeUndefined();
  });
});
