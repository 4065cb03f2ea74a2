/** A thread for thread-pool.test.ts: echoes, throws, spins past any time limit, or exits, as told. */
import { serveThreadTasks } from './thread-task.ts';

export type TestTask = { echo: string } | { throw: string } | { spin: true } | { exit: true };

serveThreadTasks((task: TestTask) => {
  if ('throw' in task) throw new Error(task.throw);
  if ('spin' in task) for (;;);
  if ('exit' in task) process.exit(3);
  return `${task.echo} from a thread`;
});
