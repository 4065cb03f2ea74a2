/**
 * A tool type's admin-facing texts in the UI's language: its name, summary and effect rule, and its
 * config form's field labels and help. Each type carries its other languages itself
 * (`translations`, from its folder in shared/src/tools); English is the registry's own.
 */
import type { FieldText } from '@agentq/shared/tools';
import type { JsonSchema } from '../components/schema-form/json-schema.ts';
import type { Locale } from '../i18n/i18n.svelte.ts';
import type { ToolTypeInfo } from './tools-api.ts';

/** The type with its texts in `current`; a type without them (or English) stays as the registry sent it. */
export function localizeToolType(toolType: ToolTypeInfo, current: Locale): ToolTypeInfo {
  const text = toolType.translations[current];
  if (!text) return toolType;
  return {
    ...toolType,
    label: text.label,
    description: text.summary,
    effect: { ...toolType.effect, summary: text.effect },
    configSchema: withFieldTexts(toolType.configSchema, text.config),
  };
}

function withFieldTexts(schema: JsonSchema, fields: Record<string, FieldText>): JsonSchema {
  if (!schema.properties) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => {
      const field = fields[key];
      if (!field) return [key, property];
      const localized = { ...property, title: field.title, description: field.description };
      return [key, field.fields ? withFieldTexts(localized, field.fields) : localized];
    }),
  );
  return { ...schema, properties };
}
