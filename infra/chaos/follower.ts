import { withoutRetriedAttempts, type RunChunk } from '@agentq/shared/events';

/** What one SSE follower saw of a run, across every reconnect. */
export type FollowerReport = {
  runId: string;
  /** Events whose seq jumped past the next expected one. */
  gaps: number;
  /** Events with a seq already received. */
  duplicates: number;
  /** Got `finish` and [DONE]. */
  finished: boolean;
  reconnects: number;
  /** 503 answers while a dependency was down (expected during outages; retried after Retry-After). */
  unavailable: number;
  events: number;
  /** `data-step-retry` markers: a worker re-ran a step a crash had cut short. */
  stepRetries: number;
  /** The answer text as the chat UI shows it: each retried step's abandoned attempt dropped. */
  text: string;
};

/**
 * Follows a run's SSE stream like a browser tab that reconnects: on any error or end without
 * [DONE] it reconnects with Last-Event-ID (after Retry-After on a 503), until `deadline`.
 */
export async function followRun(baseUrl: () => string, cookie: string, runId: string, deadline: number): Promise<FollowerReport> {
  const report: FollowerReport = { runId, gaps: 0, duplicates: 0, finished: false, reconnects: -1, unavailable: 0, events: 0, stepRetries: 0, text: '' };
  const received: { seq: number; chunk: RunChunk }[] = [];
  let lastSeq = 0;
  let sawFinish = false;
  /** [DONE] without ever seeing `finish`: the server says the run is over, we missed its end. */
  let ended = false;
  while (!report.finished && !ended && Date.now() < deadline) {
    report.reconnects += 1;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
    try {
      const response = await fetch(`${baseUrl()}/api/runs/${runId}/events`, {
        headers: { cookie, accept: 'text/event-stream', ...(lastSeq > 0 ? { 'last-event-id': String(lastSeq) } : {}) },
        signal: controller.signal,
      });
      if (response.status === 503) {
        report.unavailable += 1;
        await response.body?.cancel();
        await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
        continue;
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        await sleep(500);
        continue;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      outer: for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          if (block.includes('data: [DONE]')) {
            // Finished means the run's `finish` event arrived (on this or an earlier connection) and the stream closed.
            report.finished = sawFinish;
            if (!sawFinish) ended = true;
            break outer;
          }
          const id = /^id: ?(\d+)/m.exec(block)?.[1];
          const data = /^data: ?(\{.*)$/m.exec(block)?.[1];
          if (!id || !data) continue;
          const seq = Number(id);
          report.events += 1;
          if (seq <= lastSeq) {
            report.duplicates += 1;
            continue;
          }
          if (seq > lastSeq + 1) report.gaps += 1;
          lastSeq = seq;
          const chunk = JSON.parse(data) as RunChunk;
          received.push({ seq, chunk });
          if (chunk.type === 'data-step-retry') report.stepRetries += 1;
          if (chunk.type === 'finish') sawFinish = true;
        }
      }
    } catch {
      // Connection reset (API killed, Redis gone): reconnect.
    } finally {
      clearTimeout(timer);
    }
    if (!report.finished && !ended) await sleep(300);
  }
  // The same reduction the web client (web/src/lib/chat/run-stream.svelte.ts) and the stored message use.
  report.text = withoutRetriedAttempts(received)
    .map(({ chunk }) => (chunk.type === 'text-delta' ? chunk.delta : ''))
    .join('');
  return report;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
