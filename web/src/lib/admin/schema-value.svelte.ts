import { isFormSchema, parseJsonObject, type JsonSchema } from '../components/schema-form/json-schema.ts';

/**
 * One JSON object edited two ways, as a form generated from its JSON Schema or as raw JSON text:
 * a tool's config in the tool editor, a tool's input in the execute dialog. Switching to the form
 * needs raw text that parses; the value to send comes from whichever view is open.
 * @example const config = new SchemaValue(() => toolType?.configSchema, tool.config); … config.current()
 */
export class SchemaValue {
  value = $state<Record<string, unknown>>({});
  rawText = $state('');
  tab = $state<'form' | 'raw'>('form');
  /** The form's own check (text in a number field, say): false blocks sending. */
  formValid = $state(true);

  readonly #schema: () => JsonSchema | undefined;

  /** `rawText` defaults to the value as JSON; a schema the form cannot show starts on raw JSON. */
  constructor(schema: () => JsonSchema | undefined, value: Record<string, unknown>, rawText?: string) {
    this.#schema = schema;
    this.reset(value, rawText);
  }

  /** The schema can be shown as a form (not a union, say). */
  get formable(): boolean {
    return isFormSchema(this.#schema());
  }

  /** Why the raw text is not a JSON object, while the raw view is open. */
  get rawError(): string | null {
    return this.tab === 'raw' ? (parseJsonObject(this.rawText).error ?? null) : null;
  }

  /** Starts over with `value` (another tool type, another discovered tool): the form when the schema has one. */
  reset(value: Record<string, unknown>, rawText = JSON.stringify(value, null, 2)): void {
    this.value = value;
    this.rawText = rawText;
    this.tab = this.formable ? 'form' : 'raw';
    this.formValid = true;
  }

  /** Switches view; back to the form only with raw text that parses (its error is already shown). */
  select(next: string): void {
    if (next === this.tab) return;
    if (next === 'raw') {
      this.rawText = JSON.stringify(this.value, null, 2);
      this.tab = 'raw';
      return;
    }
    const parsed = parseJsonObject(this.rawText);
    if (parsed.error !== undefined || !this.formable) return;
    this.value = parsed.value;
    this.tab = 'form';
  }

  /**
   * The object to send: the form's value, or the parsed raw text. `invalid` says which view holds
   * something that is not valid yet.
   */
  current(): { value: Record<string, unknown> } | { invalid: 'form' | 'raw' } {
    if (this.tab === 'raw') {
      const parsed = parseJsonObject(this.rawText);
      if (parsed.error !== undefined) return { invalid: 'raw' };
      this.value = parsed.value;
      return { value: parsed.value };
    }
    if (!this.formValid) return { invalid: 'form' };
    return { value: $state.snapshot(this.value) as Record<string, unknown> };
  }
}
