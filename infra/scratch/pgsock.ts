import postgres from 'postgres';
for (const [label, url] of [['tcp', 'postgres://postgres@127.0.0.1:5432/test'], ['unix', 'postgres://postgres@/test?host=/var/run/postgresql']] as const) {
  const sql = postgres(url, { max: 4 });
  await sql`select 1`;
  for (let r = 0; r < 2; r++) {
    const c0 = process.cpuUsage(); const t0 = performance.now();
    // 20 concurrent lanes, 4000 queries
    let next = 0;
    await Promise.all(Array.from({ length: 20 }, async () => { while (next++ < 4000) await sql`select ${next}::int as x`; }));
    const c = process.cpuUsage(c0);
    console.log(label, 'wall', (performance.now() - t0).toFixed(0), 'ms; client CPU per query', ((c.user + c.system) / 4000).toFixed(1), 'us (sys', (c.system / 4000).toFixed(1), ')');
  }
  await sql.end();
}
