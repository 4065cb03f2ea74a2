import { readFileSync } from 'node:fs';
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };
const [file, target, depth = '6'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const name = (n: Node) => `${n.callFrame.functionName || '(anon)'}@${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/work\/main\//, '').slice(0, 60)}:${n.callFrame.lineNumber}`;
const stacks = new Map<string, number>();
for (const n of p.nodes) {
  if (!name(n).startsWith(target!)) continue;
  const t = self.get(n.id) ?? 0; if (!t) continue;
  const chain: string[] = []; let cur = parent.get(n.id);
  while (cur !== undefined && chain.length < Number(depth)) { chain.push(name(byId.get(cur)!)); cur = parent.get(cur); }
  const key = chain.join(' < ');
  stacks.set(key, (stacks.get(key) ?? 0) + t);
}
for (const [k, v] of [...stacks.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log((v / 1000).toFixed(0).padStart(6), 'ms ', k);
