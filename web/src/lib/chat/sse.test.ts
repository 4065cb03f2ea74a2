import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.ts';

describe('SseParser', () => {
  it('dispatches events on blank lines with their id, and skips comments', () => {
    const parser = new SseParser();
    expect(parser.feed(': keep-alive\n\nid: 1\ndata: {"type":"start"}\n\nid: 2\ndata: [DONE]\n\n')).toEqual([
      { id: '1', event: 'message', data: '{"type":"start"}' },
      { id: '2', event: 'message', data: '[DONE]' },
    ]);
  });

  it('keeps partial lines across chunks, including a CRLF split between them', () => {
    const parser = new SseParser();
    expect(parser.feed('id: 7\r')).toEqual([]);
    expect(parser.feed('\ndata: hel')).toEqual([]);
    // A trailing CR is held back: it may be the first half of a CRLF.
    expect(parser.feed('lo\r\n\r')).toEqual([]);
    expect(parser.feed('\ndata: next\r\r\n')).toEqual([
      { id: '7', event: 'message', data: 'hello' },
      { id: '7', event: 'message', data: 'next' },
    ]);
  });

  it('joins multi-line data, keeps a named event and strips only one leading space', () => {
    const parser = new SseParser();
    expect(parser.feed('event: note\ndata:  two spaces\ndata:none\n\n')).toEqual([{ id: undefined, event: 'note', data: ' two spaces\nnone' }]);
  });
});
