/**
 * What an OpenAI-compatible upstream (a model's transcription, embeddings or images endpoint) said
 * when it failed, made safe to show: the services that call them turn its words into messages.
 */

/**
 * An upstream may echo the key it refused, whole or masked ("Incorrect API key provided: sk-ab***yz"):
 * neither reaches a client.
 */
export function scrubSecret(text: string, secret: string | null | undefined): string {
  const unkeyed = secret ? text.split(secret).join('[redacted]') : text;
  return unkeyed.replace(/\bsk-[\w*-]{2,}/g, '[redacted]');
}

/** Why a fetch failed, in a word where the runtime gave one (ECONNREFUSED), else its message. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
