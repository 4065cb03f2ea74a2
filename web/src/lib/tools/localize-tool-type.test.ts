import { describeToolTypes, type FieldText } from '@agentq/shared/tools';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../components/schema-form/json-schema.ts';
import { localizeToolType } from './localize-tool-type.ts';
import type { ToolTypeInfo } from './tools-api.ts';

/** What `GET /api/tool-types` answers, built by the same function the API calls. */
const registered = describeToolTypes() as unknown as ToolTypeInfo[];

/** Every field of a config form as "path: what the form shows", nested objects included. */
function fieldTexts(schema: JsonSchema, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, property]) => [
    `${prefix}${key}: ${property.title ?? '(from the name)'} — ${property.description ?? '(none)'}`,
    ...fieldTexts(property, `${prefix}${key}.`),
  ]);
}

function catalogPaths(fields: Record<string, FieldText>, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([key, field]) => [`${prefix}${key}`, ...catalogPaths(field.fields ?? {}, `${prefix}${key}.`)]);
}

describe('tool types in Chinese', () => {
  it('has a label, a summary, an effect rule and every config field for every registered type, and nothing the registry lacks', () => {
    const withChinese = registered.filter((toolType) => toolType.translations.zh);
    expect(withChinese.map((toolType) => toolType.type).sort()).toEqual(registered.map((toolType) => toolType.type).sort());
    for (const toolType of registered) {
      const localized = localizeToolType(toolType, 'zh');
      for (const text of [localized.label, localized.description, localized.effect.summary]) expect(text, toolType.type).toMatch(/[\u4e00-\u9fff]/);
      // Every field, at any depth, reads Chinese: a field added to a type without its translation fails here.
      for (const line of fieldTexts(localized.configSchema)) expect(line, toolType.type).toMatch(/^[\w.]+: [^—]*[\u4e00-\u9fff][^—]* — .*[\u4e00-\u9fff]/);
      // And the catalog names no field the type no longer has.
      const fieldPaths = fieldTexts(toolType.configSchema).map((line) => line.split(':')[0]);
      expect(catalogPaths(toolType.translations.zh!.config).sort(), toolType.type).toEqual(fieldPaths.sort());
    }
  });

  it('changes only the texts: types, defaults, enums and limits stay the registry’s', () => {
    const fetchType = registered.find((toolType) => toolType.type === 'fetch')!;
    const localized = localizeToolType(fetchType, 'zh');
    expect(localized.label).toBe('网页抓取');
    expect(localized.effect.possible).toEqual(fetchType.effect.possible);
    const { title, description, ...rest } = localized.configSchema.properties!.defaultMethod!;
    expect([title, description]).toEqual(['默认方法', '调用未指定方法时使用的 HTTP 方法。']);
    const { description: _english, ...registryRest } = fetchType.configSchema.properties!.defaultMethod!;
    expect(rest).toEqual(registryRest);
    expect(localized.configSchema.properties!.timeout).toMatchObject({ type: 'integer', minimum: 100, maximum: 60000, default: 10000 });
    expect(localized.inputSchema).toBe(fetchType.inputSchema);
    const openApi = localizeToolType(registered.find((toolType) => toolType.type === 'openapi')!, 'zh');
    expect(openApi.configSchema.properties!.auth!.properties!.type).toMatchObject({ title: '方式', enum: ['none', 'apiKey', 'bearer'] });
  });

  it('keeps the registry’s English in English, and for a type without Chinese texts', () => {
    const calculator = registered.find((toolType) => toolType.type === 'calculator')!;
    expect(localizeToolType(calculator, 'en')).toBe(calculator);
    // A type added without translations of its own.
    const unknown = { ...calculator, type: 'weather', label: 'Weather', translations: {} } as unknown as ToolTypeInfo;
    expect(localizeToolType(unknown, 'zh')).toBe(unknown);
  });
});
