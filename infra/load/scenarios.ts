import { fillerText, toolResultsSinceLastUserMessage, type Script } from '../fake-llm/scripts';
import type { HarnessOptions } from './options';

export const LOAD_TOOL_SLUG = 'calc';

/** The words every run's answer consists of: delivered tokens are counted against these. */
export function answerText(options: HarnessOptions): string {
  return fillerText(options.tokens);
}

/**
 * What the fake model does per scenario: text streams `tokens` words; tool and approval first
 * call the calculator, then stream the answer; fanout streams text (many readers per run).
 */
export function scenarioScript(options: HarnessOptions): Script {
  const text = answerText(options);
  const latency = { timeToFirstTokenMs: options.ttft, interTokenMs: options.interval, tokenCount: options.tokens };
  const usesTool = options.scenario === 'tool' || options.scenario === 'approval';
  return (request) => {
    if (usesTool && toolResultsSinceLastUserMessage(request).length === 0) {
      return { toolCalls: [{ name: LOAD_TOOL_SLUG, input: { expression: '6 * 7' } }], latency: { timeToFirstTokenMs: options.ttft, interTokenMs: options.interval } };
    }
    return { text, latency };
  };
}
