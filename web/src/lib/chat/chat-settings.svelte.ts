import { createContext } from 'svelte';
import type { ChatOptions, StartRunBody } from './sessions-api.ts';

export type { StartRunBody } from './sessions-api.ts';

/**
 * The composer's choices (model, agent, system prompt, toggles). One instance lives in the chat
 * layout and is shared through context, so they carry over from a new chat to its session and
 * between sessions.
 */
export class ChatSettings {
  /** '' = the agent's model (or the first enabled one). */
  modelId = $state('');
  /** '' = the default agent. */
  agentId = $state('');
  systemPrompt = $state('');
  systemPromptOpen = $state(false);
  enableThinking = $state(false);
  enableTools = $state(true);
  /** Sampling for the next runs; empty (null or undefined, as a number field binds it) leaves it to the model. */
  temperature = $state<number | null | undefined>(null);
  maxOutputTokens = $state<number | null | undefined>(null);
  /** The next new chat is temporary (in no list, search or memory; deleted after a day without use). */
  temporary = $state(false);

  /** Drops choices that no longer exist (a model or agent deleted meanwhile) and picks the default agent. */
  reconcile(options: ChatOptions): void {
    if (this.modelId && !options.models.some((model) => model.id === this.modelId)) this.modelId = '';
    if (!options.agents.some((agent) => agent.id === this.agentId)) {
      this.agentId = options.agents.find((agent) => agent.isDefault)?.id ?? options.agents[0]?.id ?? '';
    }
  }

  /** The run request for `content` with the current choices; empty choices are left to the server. */
  runBody(content: string): StartRunBody {
    const systemPrompt = this.systemPrompt.trim();
    return {
      content,
      ...(this.agentId ? { agentId: this.agentId } : {}),
      ...(this.modelId ? { modelId: this.modelId } : {}),
      enableTools: this.enableTools,
      enableThinking: this.enableThinking,
      ...(systemPrompt ? { systemPrompt } : {}),
      ...(isNumber(this.temperature) ? { temperature: this.temperature } : {}),
      ...(isNumber(this.maxOutputTokens) ? { maxOutputTokens: this.maxOutputTokens } : {}),
    };
  }
}

const isNumber = (value: number | null | undefined): value is number => typeof value === 'number' && Number.isFinite(value);

export const [getChatSettings, setChatSettings] = createContext<ChatSettings>();
