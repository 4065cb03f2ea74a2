/**
 * Child process for driver-fault.test.ts: kills the backend of a running transaction (what a
 * PostgreSQL stop does to every connection) and then uses the same `db` again. `guarded` installs
 * the process guard the API and worker install; `unguarded` shows the bare driver bug.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { createLogger, guardProcess } from '../../logger';
import { createDb } from '../client';

const [url, mode] = process.argv.slice(2) as [string, 'guarded' | 'unguarded'];
if (mode === 'guarded') guardProcess(createLogger({ level: 'warn', name: 'driver-fault-fixture' }));

const database = await createDb({ url, poolSize: 2 });
const killer = postgres(url, { max: 1, onnotice: () => {} });
let pid: number | null = null;
const transaction = database.db.transaction(async (tx) => {
  const rows = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as Array<{ pid: number }>;
  pid = rows[0]!.pid;
  await tx.execute(sql`select pg_sleep(3)`);
});
while (pid === null) await sleep(20);
await killer`select pg_terminate_backend(${pid})`;
const failure = await transaction.then(
  () => 'committed',
  (error: { code?: string; message: string }) => error.code ?? error.message,
);
// The driver's deferred write (its own ROLLBACK) runs in a setImmediate after that rejection.
await sleep(500);
// Every connection of the pool must answer again: a poisoned one would hang for connect_timeout.
const answers: number[] = [];
for (let i = 0; i < 6; i++) {
  const rows = (await database.db.execute(sql`select ${i}::int as n`)) as unknown as Array<{ n: number }>;
  answers.push(rows[0]!.n);
}
console.log(JSON.stringify({ result: 'alive', failure, answers }));
await killer.end();
await database.close();
