import { NO_ERRORS, toFormErrors, type FormErrors } from '../forms/form-errors.ts';

/**
 * An editor dialog's save state: busy while the call runs, then the API's 400 issues placed next to
 * the fields the form has (`fields`) with a one-line summary for the rest.
 * @example const form = new EditorForm(['name', 'baseUrl']); … form.submit(() => createModel(body), onsaved)
 */
export class EditorForm {
  saving = $state(false);
  errors = $state<FormErrors>(NO_ERRORS);

  readonly fields: readonly string[];

  constructor(fields: readonly string[]) {
    this.fields = fields;
  }

  /** The message for `field`, if the last save put one there. */
  issue(field: string): string | undefined {
    return this.errors.fields[field];
  }

  /** Shows a problem found before calling the API (e.g. JSON that does not parse). */
  fail(summary: string, fields: Record<string, string> = {}): void {
    this.errors = { summary, fields };
  }

  /** Runs `save`; on success clears the errors and hands the result on, on failure shows why. */
  async submit<Result>(save: () => Promise<Result>, onsaved: (result: Result) => void, adjust?: (caught: unknown, errors: FormErrors) => FormErrors): Promise<void> {
    this.saving = true;
    try {
      const result = await save();
      this.errors = NO_ERRORS;
      onsaved(result);
    } catch (caught) {
      const errors = toFormErrors(caught, this.fields);
      this.errors = adjust ? adjust(caught, errors) : errors;
    } finally {
      this.saving = false;
    }
  }
}
