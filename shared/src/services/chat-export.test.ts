import { describe, expect, it } from 'vitest';
import type { ThreadMessage } from './chat';
import { attachmentDisposition, exportChat } from './chat-export';

const session = { id: 'ses_1', title: 'Budget: Q3 / Q4?', createdAt: new Date('2026-12-06T10:00:00Z'), updatedAt: new Date('2026-12-06T10:05:00Z') };
const versions = { index: 0, count: 1, ids: [] as string[] };
function message(role: 'user' | 'assistant', minute: number, parts: unknown[]): ThreadMessage {
  return { id: `msg_${minute}`, sessionId: session.id, role, parts, runId: null, parentId: null, selectedAt: null, createdAt: new Date(`2026-12-06T10:0${minute}:00Z`), versions };
}

const conversation = [
  message('user', 1, [{ type: 'text', text: 'What is 12*7? Show it in ```code```.' }]),
  message('assistant', 2, [
    { type: 'step-start' },
    { type: 'reasoning', text: 'Multiply.\n\nThen answer.' },
    { type: 'tool-calculator', toolCallId: 'call_1', state: 'output-available', input: { expression: '12*7' }, output: { success: true, data: { result: '84', note: 'a ```fence``` inside' }, text: '84', metadata: { durationMs: 1 } } },
    { type: 'tool-web_fetch', toolCallId: 'call_2', state: 'output-error', input: { url: 'http://127.0.0.1:9/' }, errorText: 'connection\nrefused' },
    { type: 'tool-web_fetch', toolCallId: 'call_5', state: 'output-available', input: { url: 'http://127.0.0.1:9/x' }, output: { success: false, error: 'HTTP 404', metadata: { durationMs: 3 } } },
    { type: 'tool-deploy', toolCallId: 'call_6', state: 'output-available', input: {}, output: { success: false, interrupted: true, error: 'the worker stopped', metadata: { durationMs: 0 } } },
    { type: 'tool-deploy', toolCallId: 'call_7', state: 'approval-requested', input: {}, approval: { id: 'ap_1' } },
    { type: 'tool-deploy', toolCallId: 'call_3', state: 'output-denied', input: {} },
    { type: 'dynamic-tool', toolName: 'mcp_search', toolCallId: 'call_4', state: 'output-available', input: { q: 'x' }, output: 'plain text result' },
    { type: 'data-run-status', data: { status: 'succeeded' } },
    { type: 'text', text: '12 × 7 = **84**.' },
  ]),
  message('user', 3, [{ type: 'file', mediaType: 'text/csv', filename: 'q3_*final*.csv', url: 'agentq-file:fil_1' }, { type: 'text', text: 'Thanks' }]),
  message('assistant', 4, []),
];

describe('exportChat', () => {
  it('writes Markdown a reader can follow: who said what when, the reasoning, each tool call with its input and outcome', () => {
    const file = exportChat(session, conversation, 'markdown', new Date('2026-12-06T11:00:30Z'), new Map([['msg_2', { rating: 'down', comment: 'Too\nlong' }], ['msg_4', { rating: 'up', comment: null }]]));
    expect(file.filename).toBe('Budget-Q3-Q4.md');
    expect(file.contentType).toBe('text/markdown; charset=utf-8');
    expect(file.body).toBe(
      [
        '# Budget: Q3 / Q4?',
        '_Exported from agentq on 2026-12-06 11:00 UTC; 4 messages._',
        '## You · 2026-12-06 10:01 UTC',
        'What is 12*7? Show it in ```code```.',
        '## Assistant · 2026-12-06 10:02 UTC',
        '> **Thinking**\n>\n> Multiply.\n>\n> Then answer.',
        '**Tool call `calculator`**: succeeded\n\nInput:\n\n```json\n{\n  "expression": "12*7"\n}\n```\n\nResult:\n\n````json\n{\n  "result": "84",\n  "note": "a ```fence``` inside"\n}\n````',
        '**Tool call `web_fetch`**: failed: connection refused\n\nInput:\n\n```json\n{\n  "url": "http://127.0.0.1:9/"\n}\n```',
        '**Tool call `web_fetch`**: failed: HTTP 404\n\nInput:\n\n```json\n{\n  "url": "http://127.0.0.1:9/x"\n}\n```',
        '**Tool call `deploy`**: interrupted\n\nInput:\n\n```json\n{}\n```',
        '**Tool call `deploy`**: no result\n\nInput:\n\n```json\n{}\n```',
        '**Tool call `deploy`**: denied\n\nInput:\n\n```json\n{}\n```',
        '**Tool call `mcp_search`**: succeeded\n\nInput:\n\n```json\n{\n  "q": "x"\n}\n```\n\nResult:\n\n```text\nplain text result\n```',
        '12 × 7 = **84**.',
        '_Rated bad 👎: Too long_',
        '## You · 2026-12-06 10:03 UTC',
        '📎 _Attached: q3\\_\\*final\\*.csv (text/csv)_',
        'Thanks',
        '## Assistant · 2026-12-06 10:04 UTC',
        '_(no answer)_',
        '_Rated good 👍_',
      ].join('\n\n') + '\n',
    );
  });

  it('writes JSON with the stored parts, to process', () => {
    const file = exportChat(session, conversation.slice(0, 2), 'json', new Date('2026-12-06T11:00:30Z'), new Map([['msg_2', { rating: 'up', comment: 'Right' }]]));
    expect(file.filename).toBe('Budget-Q3-Q4.json');
    expect(file.contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(file.body)).toEqual({
      format: 'agentq.chat.v1',
      exportedAt: '2026-12-06T11:00:30.000Z',
      session: { id: 'ses_1', title: 'Budget: Q3 / Q4?', createdAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:05:00.000Z' },
      messages: [
        { id: 'msg_1', role: 'user', createdAt: '2026-12-06T10:01:00.000Z', parts: conversation[0]!.parts },
        { id: 'msg_2', role: 'assistant', createdAt: '2026-12-06T10:02:00.000Z', parts: conversation[1]!.parts, feedback: { rating: 'up', comment: 'Right' } },
      ],
    });
  });

  it("lists an answer's sources under it in Markdown and as `sources` in JSON, numbered as the text cites them", () => {
    const sources = [
      { index: 1, kind: 'knowledge', title: 'policy_v2.md', knowledgeBaseId: 'kb_1', fileId: 'kf_1', position: 2, snippet: 'Expenses above 500 euros need a manager signature.' },
      { index: 2, kind: 'web', title: 'Travel [rules]', url: 'https://example.com/travel', snippet: 'Book trains over flights.' },
    ];
    const answer = message('assistant', 2, [
      { type: 'tool-kb', toolCallId: 'call_1', state: 'output-available', input: { query: 'expenses' }, output: { success: true, text: '…', data: '…', metadata: { durationMs: 1, sources: [sources[0]] } } },
      { type: 'tool-search', toolCallId: 'call_2', state: 'output-available', input: { query: 'travel' }, output: { success: true, text: '…', data: '…', metadata: { durationMs: 1, sources: [sources[1], { index: 3, kind: 'web', title: 'bad link', url: 'javascript:alert(1)', snippet: '' }] } } },
      { type: 'text', text: 'A manager signs above 500 euros [1]; prefer trains [2].' },
    ]);
    const markdown = exportChat(session, [answer], 'markdown').body;
    expect(markdown).toContain(
      '**Sources**\n\n- [1] policy\\_v2.md (knowledge base, passage 3)\n  > Expenses above 500 euros need a manager signature.\n- [2] [Travel \\[rules\\]](<https://example.com/travel>)\n  > Book trains over flights.\n',
    );
    expect(markdown).not.toContain('javascript:');
    const json = JSON.parse(exportChat(session, [answer], 'json').body);
    expect(json.messages[0].sources).toEqual(sources);
    // A message without sources has no `sources` key.
    expect(JSON.parse(exportChat(session, conversation.slice(0, 1), 'json').body).messages[0]).not.toHaveProperty('sources');
  });

  it('names the file after the title in any script, else the session id; the header keeps a UTF-8 name and an ASCII fallback', () => {
    expect(exportChat({ ...session, title: '本周会议纪要：预算' }, [], 'markdown').filename).toBe('本周会议纪要-预算.md');
    expect(exportChat({ ...session, title: '???' }, [], 'json').filename).toBe('ses_1.json');
    expect(exportChat({ ...session, title: 'x'.repeat(100) }, [], 'json').filename).toBe(`${'x'.repeat(80)}.json`);
    expect(attachmentDisposition('本周-预算.md')).toBe(`attachment; filename="__-__.md"; filename*=UTF-8''${encodeURIComponent('本周-预算.md')}`);
    expect(attachmentDisposition(`it's (fine).md`)).toBe(`attachment; filename="it's (fine).md"; filename*=UTF-8''it%27s%20%28fine%29.md`);
  });
});
