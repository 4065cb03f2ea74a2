import { readFileSync } from 'node:fs';

/** `node --import tsx infra/load/summarize-profile.ts FILE.cpuprofile [N]`: self time by function and by package. */
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };
const [file, count = '25'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: Node[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };
const selfTime = new Map<number, number>();
profile.samples.forEach((id, index) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
const total = [...selfTime.values()].reduce((sum, value) => sum + value, 0);
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const node of profile.nodes) {
  const time = selfTime.get(node.id) ?? 0;
  const url = node.callFrame.url.replace(/^file:\/\//, '');
  const where = url.includes('node_modules/') ? url.split('node_modules/').pop()!.split('/').slice(0, url.includes('node_modules/@') ? 2 : 1).join('/') : url.startsWith('node:') || url === '' ? (url || '(native)') : url.replace(/^.*\/work\/main\//, '');
  const key = `${node.callFrame.functionName || '(anonymous)'}  ${where}:${node.callFrame.lineNumber}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + time);
  byPackage.set(where.includes('/') && !where.startsWith('node:') && !url.includes('node_modules/') ? where.split('/').slice(0, 2).join('/') : where, (byPackage.get(where) ?? 0) + time);
}
const top = (map: Map<string, number>, n: number) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([key, time]) => `${((time / total) * 100).toFixed(1).padStart(5)}%  ${(time / 1000).toFixed(0).padStart(6)} ms  ${key}`);
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`);
console.log('-- by package/file');
console.log(top(byPackage, 15).join('\n'));
console.log('-- by function');
console.log(top(byFunction, Number(count)).join('\n'));
