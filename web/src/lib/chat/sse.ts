/** One dispatched server-sent event (WHATWG HTML §9.2.6), with the fields agentq uses. */
export type SseMessage = { id: string | undefined; event: string; data: string };

/**
 * Incremental `text/event-stream` parser: feed it decoded text as it arrives and it returns the
 * events completed so far. Handles CRLF, CR and LF line ends (also split across chunks),
 * multi-line `data`, comments (`: keep-alive`) and the one optional space after the colon.
 * @example const parser = new SseParser(); for (const message of parser.feed(text)) …
 */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #id: string | undefined;

  feed(text: string): SseMessage[] {
    this.#buffer += text;
    const messages: SseMessage[] = [];
    let start = 0;
    for (let index = 0; index < this.#buffer.length; index++) {
      const character = this.#buffer[index];
      if (character !== '\n' && character !== '\r') continue;
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (character === '\r' && index === this.#buffer.length - 1) break;
      const message = this.#line(this.#buffer.slice(start, index));
      if (message) messages.push(message);
      if (character === '\r' && this.#buffer[index + 1] === '\n') index++;
      start = index + 1;
    }
    this.#buffer = this.#buffer.slice(start);
    return messages;
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
    return undefined;
  }

  #dispatch(): SseMessage | undefined {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = '';
    if (data.length === 0) return undefined;
    // The last event id persists across events, as in EventSource.
    return { id: this.#id, event: event || 'message', data: data.join('\n') };
  }
}

/**
 * The events of a `text/event-stream` body, as they arrive. Cancels the body when the consumer
 * stops early, so the connection is released.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield* parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
