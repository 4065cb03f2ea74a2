/** Heads the user's custom instructions in the system prompt, after the agent's own prompt and before memory. */
export const USER_INSTRUCTIONS_HEADER = '## About the user and how they want answers';

/**
 * The run's system prompt with the user's custom instructions (Account page; carried in the run's
 * options) as a section of their own: the agent decides what it is, the user what they want from it.
 * Returns `instructions` unchanged for a user without any.
 * @example withUserInstructions('You are a travel agent.', 'Metric units, please.')
 */
export function withUserInstructions(instructions: string | undefined, userInstructions: string | undefined): string | undefined {
  if (!userInstructions) return instructions;
  const section = `${USER_INSTRUCTIONS_HEADER}\n${userInstructions}`;
  return instructions ? `${instructions}\n\n${section}` : section;
}
