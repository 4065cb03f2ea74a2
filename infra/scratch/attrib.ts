import { readFileSync } from 'node:fs';
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
const [file, skipS = '6', mode = 'pkg'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const where = (n: Node) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  if (!url || url.startsWith('node:')) return undefined;
  if (url.includes('node_modules/')) { const rest = url.split('node_modules/').pop()!; return rest.startsWith('@') ? rest.split('/').slice(0, 2).join('/') : rest.split('/')[0]; }
  return mode === 'fn' ? `${n.callFrame.functionName}@${url.replace(/^.*\/dist\//, '')}:${n.callFrame.lineNumber}` : url.replace(/^.*\/work\/main\//, '');
};
const totals = new Map<string, number>();
let t = 0, all = 0;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < Number(skipS) * 1e6) return;
  let node = byId.get(id)!;
  const fn = node.callFrame.functionName;
  if (fn === '(idle)') return;
  let key: string | undefined;
  let cur: number | undefined = id;
  while (cur !== undefined) { const n = byId.get(cur)!; key = where(n); if (key) { if (mode === 'fn') { /* our code frame: keep the first non-lib frame */ const u = n.callFrame.url; if (u.includes('node_modules')) { key = undefined; } } if (key) break; } cur = parent.get(cur); }
  key ??= fn === '(garbage collector)' ? '(gc)' : fn === '(program)' ? '(program)' : '(node internal / no js caller)';
  totals.set(key, (totals.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
  all += p.timeDeltas[i] ?? 0;
});
console.log(`${file}: busy ${(all / 1e6).toFixed(2)} s after ${skipS} s`);
for (const [k, v] of [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(((v / all) * 100).toFixed(1).padStart(5) + '%', (v / 1000).toFixed(0).padStart(6), 'ms', k);
