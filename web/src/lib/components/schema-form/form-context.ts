import type { FieldIssue } from './json-schema.ts';

/** What every field of one SchemaForm shares: its name, the API's issues, and a validity registry. */
export type SchemaFormContext = {
  /** Prefix of DOM ids and test ids (`config` → `config-field-timeout`). */
  readonly name: string;
  readonly issues: FieldIssue[];
  readonly disabled: boolean;
  /** A widget whose text cannot become a value yet (bad JSON, "abc" in a number list) reports it here. */
  setInvalid: (key: string, message: string | null) => void;
};
