import { describe, expect, it } from 'vitest';
import { CHATS_PER_IMPORT, chatImportBodySchema } from './import-chats';

const at = (iso: string) => new Date(iso);

/** A ChatGPT conversation as its data export has them: a tree of nodes, `current_node` the leaf shown. */
function chatgptConversation(nodes: { id: string; parent?: string; role?: string; name?: string; recipient?: string; time?: number; content?: Record<string, unknown>; hidden?: boolean }[], extra: Record<string, unknown> = {}) {
  const mapping: Record<string, unknown> = {};
  for (const node of nodes) {
    mapping[node.id] = {
      id: node.id,
      parent: node.parent ?? null,
      children: nodes.filter((child) => child.parent === node.id).map((child) => child.id),
      message: node.role
        ? {
            id: `m-${node.id}`,
            author: { role: node.role, name: node.name ?? null, metadata: {} },
            create_time: node.time ?? null,
            content: node.content,
            status: 'finished_successfully',
            recipient: node.recipient ?? 'all',
            metadata: node.hidden ? { is_visually_hidden_from_conversation: true } : {},
          }
        : null,
    };
  }
  return { title: 'Primes', create_time: 1_700_000_000.5, update_time: 1_700_000_100, mapping, current_node: nodes.at(-1)!.id, conversation_id: 'conv-1', ...extra };
}

describe('reading a chat file', () => {
  it("reads agentq's own JSON export: text, reasoning and ended tool calls kept; files, sources, provider options and unended calls left out", () => {
    const parsed = chatImportBodySchema.safeParse({
      format: 'agentq.chat.v1',
      exportedAt: '2026-12-06T10:00:00.000Z',
      session: { id: 'cs_old', title: '  Trip\nplanning  ', createdAt: '2026-12-01T09:00:00.000Z', updatedAt: '2026-12-01T09:05:00.000Z' },
      messages: [
        { id: 'msg_1', role: 'user', createdAt: '2026-12-01T09:00:01.000Z', parts: [{ type: 'text', text: 'How far is Lyon?', providerMetadata: { openai: { store: true } } }, { type: 'file', mediaType: 'image/png', url: 'http://127.0.0.1:9/secret.png' }] },
        {
          id: 'msg_2',
          role: 'assistant',
          createdAt: '2026-12-01T09:00:04.000Z',
          parts: [
            { type: 'step-start' },
            { type: 'reasoning', text: 'Look it up.', providerMetadata: { agentq: { durationMs: 1200 } } },
            { type: 'tool-web_fetch', toolCallId: 'call_1', state: 'output-available', input: { url: 'http://127.0.0.1:9/lyon' }, output: { success: true, text: '465 km' }, callProviderMetadata: { x: { y: 1 } }, approval: { id: 'ap_1', approved: true } },
            { type: 'dynamic-tool', toolName: 'mcp_maps', toolCallId: 'call_2', state: 'output-error', input: {}, errorText: 'offline' },
            { type: 'tool-deploy', toolCallId: 'call_3', state: 'approval-requested', input: {}, approval: { id: 'ap_2' } },
            { type: 'source-url', sourceId: 's1', url: 'http://127.0.0.1:9/' },
            { type: 'step-start' },
            { type: 'text', text: 'About 465 km.' },
          ],
        },
      ],
    });
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const [chat] = parsed.data!;
    expect(chat).toMatchObject({ title: 'Trip planning', createdAt: at('2026-12-01T09:00:00.000Z'), droppedParts: 3 });
    expect(chat!.messages).toEqual([
      { role: 'user', createdAt: at('2026-12-01T09:00:01.000Z'), parts: [{ type: 'text', text: 'How far is Lyon?' }] },
      {
        role: 'assistant',
        createdAt: at('2026-12-01T09:00:04.000Z'),
        parts: [
          { type: 'step-start' },
          { type: 'reasoning', text: 'Look it up.', providerMetadata: { agentq: { durationMs: 1200 } } },
          { type: 'tool-web_fetch', toolCallId: 'call_1', state: 'output-available', input: { url: 'http://127.0.0.1:9/lyon' }, output: { success: true, text: '465 km' } },
          { type: 'dynamic-tool', toolName: 'mcp_maps', toolCallId: 'call_2', state: 'output-error', input: {}, errorText: 'offline' },
          { type: 'step-start' },
          { type: 'text', text: 'About 465 km.' },
        ],
      },
    ]);
  });

  it('names what is wrong in a malformed part, and in a file that is not a chat export', () => {
    const badPart = chatImportBodySchema.safeParse({ format: 'agentq.chat.v1', messages: [{ role: 'assistant', parts: [{ type: 'text', text: 42 }] }] });
    expect(badPart.error?.issues.map((issue) => issue.path)).toEqual([[0, 'messages', 0, 'parts', 0, 'text']]);
    const badTool = chatImportBodySchema.safeParse({ format: 'agentq.chat.v1', messages: [{ role: 'assistant', parts: [{ type: 'tool-rm -rf', toolCallId: 'c', state: 'output-denied', input: {} }] }] });
    expect(badTool.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([[[0, 'messages', 0, 'parts', 0, 'type'], 'Tool names are letters, digits, _ and -']]);
    const badRole = chatImportBodySchema.safeParse({ format: 'agentq.chat.v1', messages: [{ role: 'system', parts: [] }] });
    expect(badRole.error?.issues[0]?.path).toEqual([0, 'messages', 0, 'role']);
    for (const body of [{ hello: 'world' }, 'text', 42, null]) {
      const parsed = chatImportBodySchema.safeParse(body);
      expect(parsed.error?.issues[0]?.message).toMatch(/^Not a chat export: expected agentq's JSON export \("format": "agentq.chat.v1"\) or a ChatGPT conversation/);
    }
    expect(chatImportBodySchema.safeParse([]).error?.issues[0]?.message).toBe('The file holds no chats');
    const tooMany = Array.from({ length: CHATS_PER_IMPORT + 1 }, () => ({ format: 'agentq.chat.v1', messages: [] }));
    expect(chatImportBodySchema.safeParse(tooMany).error?.issues[0]?.message).toBe(`Import at most ${CHATS_PER_IMPORT} chats at a time`);
  });

  it('reads the branch a ChatGPT conversation shows: questions, answers, thoughts and a tool call with its output; hidden and system messages out', () => {
    const conversation = chatgptConversation([
      { id: 'root' },
      { id: 'sys', parent: 'root', role: 'system', content: { content_type: 'text', parts: [''] }, hidden: true },
      { id: 'ctx', parent: 'sys', role: 'user', content: { content_type: 'user_editable_context', user_profile: 'I like maths' } },
      { id: 'q1', parent: 'ctx', role: 'user', time: 1_700_000_010, content: { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer', asset_pointer: 'file-service://x' }, 'Is 91 prime?'] } },
      // A first answer, regenerated: the second one is shown (current_node's branch).
      { id: 'a1-old', parent: 'q1', role: 'assistant', time: 1_700_000_011, content: { content_type: 'text', parts: ['Yes.'] } },
      { id: 'think', parent: 'q1', role: 'assistant', time: 1_700_000_012, content: { content_type: 'thoughts', thoughts: [{ summary: 'Factor', content: 'Try 7.' }] } },
      { id: 'recap', parent: 'think', role: 'assistant', time: 1_700_000_013, content: { content_type: 'reasoning_recap', content: 'Thought for 3 seconds' } },
      { id: 'code', parent: 'recap', role: 'assistant', recipient: 'python', time: 1_700_000_014, content: { content_type: 'code', language: 'unknown', text: 'print(91 % 7)' } },
      { id: 'out', parent: 'code', role: 'tool', name: 'python', time: 1_700_000_015, content: { content_type: 'execution_output', text: '0' } },
      { id: 'a1', parent: 'out', role: 'assistant', time: 1_700_000_016, content: { content_type: 'text', parts: ['No: 91 = 7 × 13.'] } },
      { id: 'q2', parent: 'a1', role: 'user', time: 1_700_000_020, content: { content_type: 'text', parts: ['Draw it'] } },
      { id: 'dalle', parent: 'q2', role: 'assistant', recipient: 'dalle.text2im', time: 1_700_000_021, content: { content_type: 'code', language: 'json', text: '{"prompt":"91 dots"}' } },
    ]);
    const parsed = chatImportBodySchema.safeParse([conversation]);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const [chat] = parsed.data!;
    expect(chat).toMatchObject({ title: 'Primes', createdAt: at('2023-11-14T22:13:20.500Z'), droppedParts: 1 });
    expect(chat!.messages).toEqual([
      { role: 'user', createdAt: at('2023-11-14T22:13:30.000Z'), parts: [{ type: 'text', text: 'Is 91 prime?' }] },
      {
        role: 'assistant',
        createdAt: at('2023-11-14T22:13:32.000Z'),
        parts: [
          { type: 'reasoning', text: 'Try 7.' },
          { type: 'tool-python', toolCallId: 'chatgpt-5', input: { code: 'print(91 % 7)' }, state: 'output-available', output: { text: '0' } },
          { type: 'step-start' },
          { type: 'text', text: 'No: 91 = 7 × 13.' },
        ],
      },
      { role: 'user', createdAt: at('2023-11-14T22:13:40.000Z'), parts: [{ type: 'text', text: 'Draw it' }] },
      {
        role: 'assistant',
        createdAt: at('2023-11-14T22:13:41.000Z'),
        parts: [{ type: 'tool-dalle_text2im', toolCallId: 'chatgpt-9', input: { prompt: '91 dots' }, state: 'output-error', errorText: 'The export has no result for this call' }],
      },
    ]);
  });

  it('takes the newest message as the end of a ChatGPT conversation without current_node, and names an untitled one', () => {
    const conversation = chatgptConversation(
      [
        { id: 'q', role: 'user', time: 1_700_000_000, content: { content_type: 'text', parts: ['Hi'] } },
        { id: 'a-old', parent: 'q', role: 'assistant', time: 1_700_000_001, content: { content_type: 'text', parts: ['Hello'] } },
        { id: 'a-new', parent: 'q', role: 'assistant', time: 1_700_000_005, content: { content_type: 'text', parts: ['Hello again'] } },
      ],
      { current_node: null, title: null },
    );
    const [chat] = chatImportBodySchema.parse(conversation);
    expect(chat!.title).toBe('Imported chat');
    expect(chat!.messages.map((message) => (message.parts[0] as { text: string }).text)).toEqual(['Hi', 'Hello again']);
  });

  it('keeps messages in order when a file gives one an earlier time than the one before it, and leaves empty ones out', () => {
    const [chat] = chatImportBodySchema.parse({
      format: 'agentq.chat.v1',
      messages: [
        { role: 'user', createdAt: '2026-12-01T10:00:00Z', parts: [{ type: 'text', text: 'First' }] },
        { role: 'assistant', createdAt: '2026-12-01T09:00:00Z', parts: [{ type: 'step-start' }, { type: 'text', text: '   ' }] },
        { role: 'assistant', createdAt: '2026-12-01T09:30:00Z', parts: [{ type: 'text', text: 'Second' }] },
      ],
    });
    expect(chat!.messages.map((message) => [message.createdAt.toISOString(), message.parts])).toEqual([
      ['2026-12-01T10:00:00.000Z', [{ type: 'text', text: 'First' }]],
      ['2026-12-01T10:00:00.000Z', [{ type: 'text', text: 'Second' }]],
    ]);
  });
});
