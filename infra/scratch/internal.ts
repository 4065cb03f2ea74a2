import { readFileSync } from 'node:fs';
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
const [file, skipS = '6'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const short = (n: Node) => `${n.callFrame.functionName || '(anon)'}@${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/work\/main\//, '').replace(/^file:\/\//, '')}:${n.callFrame.lineNumber}`;
const totals = new Map<string, number>(); let t = 0, all = 0;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0; if (t < Number(skipS) * 1e6) return;
  const chain: Node[] = []; let cur: number | undefined = id;
  while (cur !== undefined) { chain.push(byId.get(cur)!); cur = parent.get(cur); }
  if (chain[0]!.callFrame.functionName === '(idle)') return;
  if (chain.some((n) => n.callFrame.url && !n.callFrame.url.startsWith('node:'))) return;
  // root-most 4 named frames
  const named = chain.filter((n) => n.callFrame.functionName && n.callFrame.functionName !== '(root)').reverse();
  const key = named.slice(0, 3).map(short).join(' > ') + ' ... ' + short(chain[0]!);
  totals.set(key, (totals.get(key) ?? 0) + (p.timeDeltas[i] ?? 0)); all += p.timeDeltas[i] ?? 0;
});
console.log(`no-user-frame: ${(all / 1e6).toFixed(2)} s`);
for (const [k, v] of [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1000).toFixed(0).padStart(6), 'ms', k.slice(0, 260));
