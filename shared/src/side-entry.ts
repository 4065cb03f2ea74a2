/**
 * Where a side entry is (a module built as a file of its own, `sideEntries` in
 * infra/compile/build.ts): beside the importing source file when run from sources, beside the
 * bundle when compiled. Computed at run time, so the bundler leaves the module out of the bundle.
 */
export function sideEntryUrl(importMetaUrl: string, name: string): URL {
  return new URL(`./${name}.${importMetaUrl.endsWith('.ts') ? 'ts' : 'js'}`, importMetaUrl);
}
