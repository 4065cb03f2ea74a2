/**
 * The lazily loaded half of diagrams.ts. A diagram comes from the model, so Mermaid runs at its
 * strictest: `securityLevel: 'strict'` (labels sanitized, no click handlers or links to scripts;
 * a diagram's `%%{init}%%` cannot lower it), labels as SVG text rather than HTML, bounded size; the
 * Markdown around it is sanitized again with DOMPurify.
 */
import mermaid from 'mermaid';

let initialized: string | undefined;
let counter = 0;

export async function drawDiagram(code: string, theme: 'default' | 'dark'): Promise<{ svg: string } | { error: string }> {
  if (initialized !== theme) {
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', htmlLabels: false, theme, maxTextSize: 20_000, maxEdges: 500 });
    initialized = theme;
  }
  try {
    const { svg } = await mermaid.render(`diagram-${++counter}`, code);
    return { svg };
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n').slice(0, 3).join('\n') : String(error) };
  } finally {
    // A failed render leaves its scratch element behind.
    document.getElementById(`ddiagram-${counter}`)?.remove();
    document.getElementById(`diagram-${counter}`)?.remove();
  }
}
