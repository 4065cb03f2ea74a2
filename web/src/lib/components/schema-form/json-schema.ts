import { t } from '../../i18n/i18n.svelte.ts';

/** A JSON Schema as `z.toJSONSchema` writes it (draft 2020-12); only the keywords the UI reads are typed. */
export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  examples?: unknown[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  [keyword: string]: unknown;
};


/**
 * How SchemaForm renders one value. Decided from the JSON Schema alone, so a new tool type
 * gets its form without any UI code; whatever is not listed falls back to a JSON editor.
 */
export type FieldKind =
  | 'string'
  | 'text'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'list'
  | 'record'
  | 'object'
  | 'json';

/** A path into the edited value, as API issues name it (`['timeout']`, `['defaultHeaders', 'x-key']`). */
export type FieldPath = (string | number)[];

export type FieldIssue = { path: FieldPath; message: string };

// Strings allowed this long get a textarea instead of a one-line input.
const MULTILINE_MIN_LENGTH = 200;
const MULTILINE_FORMATS = new Set(['textarea', 'multiline', 'markdown']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

function isNullSchema(schema: JsonSchema): boolean {
  return schema.type === 'null' || (schema.const === null && schema.type === undefined);
}

/**
 * Reduces `nullable`/optional wrappers to the schema underneath: `anyOf: [X, {type: 'null'}]`
 * and `type: ['string', 'null']` become X, keeping the outer description and default.
 */
export function unwrapSchema(schema: JsonSchema): JsonSchema {
  const members = schema.anyOf ?? schema.oneOf;
  if (members) {
    const meaningful = members.filter((member) => !isNullSchema(member));
    if (meaningful.length === 1 && meaningful[0]) {
      const { anyOf: _anyOf, oneOf: _oneOf, ...outer } = schema;
      return unwrapSchema({ ...meaningful[0], ...outer });
    }
  }
  const types = typesOf(schema).filter((type) => type !== 'null');
  if (Array.isArray(schema.type) && types.length === 1) return { ...schema, type: types[0] };
  return schema;
}

/** The allowed values of an enum, a `const`, or a union made only of constants; otherwise undefined. */
export function enumOptions(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema && schema.const !== undefined) return [schema.const];
  const members = schema.anyOf ?? schema.oneOf;
  if (members && members.length > 0 && members.every((member) => 'const' in member || Array.isArray(member.enum))) {
    return members.flatMap((member) => (Array.isArray(member.enum) ? member.enum : [member.const]));
  }
  return undefined;
}

function isScalarItem(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const item = unwrapSchema(schema);
  const [type] = typesOf(item);
  return typesOf(item).length === 1 && (type === 'string' || type === 'number' || type === 'integer') && !item.properties;
}

/** The schema of a record's values (`additionalProperties`), when the object has no fixed properties. */
export function recordValueSchema(schema: JsonSchema): JsonSchema | undefined {
  if (schema.properties && Object.keys(schema.properties).length > 0) return undefined;
  if (isRecord(schema.additionalProperties)) return schema.additionalProperties as JsonSchema;
  return undefined;
}

/** Picks the widget for a schema. */
export function fieldKind(rawSchema: JsonSchema): FieldKind {
  const schema = unwrapSchema(rawSchema);
  if (enumOptions(schema)) return 'enum';
  if (schema.anyOf || schema.oneOf) return 'json';
  const types = typesOf(schema);
  if (types.length !== 1) return 'json';
  switch (types[0]) {
    case 'string':
      return (schema.maxLength ?? 0) > MULTILINE_MIN_LENGTH || MULTILINE_FORMATS.has(schema.format ?? '') ? 'text' : 'string';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'array':
      return isScalarItem(schema.items) ? 'list' : 'json';
    case 'object': {
      if (schema.properties && Object.keys(schema.properties).length > 0) return 'object';
      const values = recordValueSchema(schema);
      return values && isScalarItem(values) ? 'record' : 'json';
    }
    default:
      return 'json';
  }
}

/** True when the schema is an object with named fields, so SchemaForm can render it as a form. */
export function isFormSchema(schema: JsonSchema | undefined): schema is JsonSchema {
  return !!schema && fieldKind(schema) === 'object';
}

/** A deep copy of plain JSON data. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * The value a form starts from: the schema's defaults (nested objects filled field by field),
 * overlaid with `base` (the type's defaults, or the saved config).
 */
export function initialValue(schema: JsonSchema, base?: unknown): unknown {
  const resolved = unwrapSchema(schema);
  if (base !== undefined && !isRecord(base)) return cloneJson(base);
  if (fieldKind(resolved) === 'object') {
    const defaults = isRecord(resolved.default) ? resolved.default : {};
    const result: Record<string, unknown> = { ...cloneJson(defaults), ...cloneJson(base ?? {}) };
    const required = new Set(resolved.required ?? []);
    for (const [key, property] of Object.entries(resolved.properties ?? {})) {
      const value = initialValue(property, result[key]);
      // An optional nested object with nothing to pre-fill stays absent rather than `{}`.
      const emptyOptional =
        result[key] === undefined &&
        !required.has(key) &&
        unwrapSchema(property).default === undefined &&
        isRecord(value) &&
        Object.keys(value).length === 0;
      if (value !== undefined && !emptyOptional) result[key] = value;
    }
    return result;
  }
  if (base !== undefined) return cloneJson(base);
  return cloneJson(resolved.default);
}

/**
 * A value that satisfies the schema's required fields, for pre-filling a JSON editor
 * (the first member of a union, `examples[0]` when the schema gives one).
 */
export function exampleValue(rawSchema: JsonSchema): unknown {
  const schema = unwrapSchema(rawSchema);
  if (schema.examples?.length) return cloneJson(schema.examples[0]);
  if (schema.default !== undefined) return cloneJson(schema.default);
  const options = enumOptions(schema);
  if (options) return options[0];
  const members = schema.oneOf ?? schema.anyOf;
  if (members?.[0]) return exampleValue(members[0]);
  switch (typesOf(schema)[0]) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const key of schema.required ?? []) {
        const property = schema.properties?.[key];
        result[key] = property ? exampleValue(property) : null;
      }
      return result;
    }
    case 'array':
      return [];
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** "defaultHeaders" → "Default headers"; a schema `title` wins. */
export function fieldLabel(key: string | number, schema?: JsonSchema): string {
  if (schema?.title) return schema.title;
  const words = String(key)
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function samePath(left: FieldPath, right: FieldPath): boolean {
  return left.length === right.length && left.every((segment, index) => String(segment) === String(right[index]));
}

export function startsWithPath(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.every((segment, index) => String(segment) === String(path[index]));
}

/**
 * The issues a field shows beside itself: a fieldset shows only its own, a leaf widget also
 * shows those of the values inside it (`allowedDomains.2`, `defaultHeaders.x-key`).
 */
export function issuesFor(issues: FieldIssue[], path: FieldPath, kind: FieldKind): FieldIssue[] {
  return issues.filter((issue) => (kind === 'object' ? samePath(issue.path, path) : startsWithPath(issue.path, path)));
}

/** `config.defaultHeaders.x-key` for a summary line; `(root)` for the whole value. */
export function formatPath(path: FieldPath): string {
  return path.length === 0 ? '(root)' : path.join('.');
}

/** A stable DOM id / test id fragment for a path. */
export function pathId(path: FieldPath): string {
  return path.map((segment) => String(segment).replace(/[^\w-]/g, '_')).join('.');
}

/** Parses JSON text; `{ error }` carries the parser's message for the editor. */
export function parseJson(text: string): { value: unknown; error?: undefined } | { value?: undefined; error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : 'Invalid JSON' };
  }
}

/** Parses the text of a JSON editor that must hold an object (a config, a tool input). */
export function parseJsonObject(text: string): { value: Record<string, unknown>; error?: undefined } | { value?: undefined; error: string } {
  if (!text.trim()) return { error: t('schemaForm.enterObject', { example: '{}' }) };
  const parsed = parseJson(text);
  if (parsed.error !== undefined) return { error: `Invalid JSON: ${parsed.error}` };
  if (!isRecord(parsed.value)) return { error: t('schemaForm.mustBeObject') };
  return { value: parsed.value };
}

/**
 * One example per member of a union schema (`oneOf`/`anyOf`), labelled by the constants that
 * tell the members apart (`action: now`), for a JSON editor's "start from" picker.
 */
export function unionExamples(rawSchema: JsonSchema): { label: string; value: unknown }[] {
  const schema = unwrapSchema(rawSchema);
  const members = schema.oneOf ?? schema.anyOf ?? [];
  return members.map((member, index) => {
    const constants = Object.entries(unwrapSchema(member).properties ?? {})
      .map(([key, property]) => [key, enumOptions(property)] as const)
      .filter(([, options]) => options?.length === 1)
      .map(([key, options]) => `${key}: ${String(options?.[0])}`);
    const label = member.title ?? (constants.length > 0 ? constants.join(', ') : (member.description ?? `Shape ${index + 1}`));
    return { label, value: exampleValue(member) };
  });
}
