import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

export type LuaScript = { name: string; content: string; keys: number };

const require = createRequire(import.meta.url);

/**
 * BullMQ (6.7) puts the queue's marker back every time a worker takes a job (`prepareJobForProcessing`
 * in `moveToActive` and in `moveToFinished`'s fetch of the next job), whether or not another job
 * waits: so that, after a bulk add, each worker that wakes wakes the next. With nothing left to take,
 * that marker wakes an idle worker (the other process, or this one's next wait) for a `BZPOPMIN` and
 * a `moveToActive` that find nothing: two round trips and a process woken per job, on a queue that
 * keeps up with its jobs. These versions put it back only while the wait list or the prioritized
 * set still holds a job (KEYS[1] and KEYS[3] in both scripts), which keeps the chain of wake-ups a
 * bulk add needs. An add always sets the marker itself, so no job is left unseen.
 *
 * MARKER_PUT_BACK is the line that puts it back, with the comment after it so that it matches
 * there only.
 */
export const MARKER_PUT_BACK = '  addBaseMarkerIfNeeded(markerKey, false)\n  -- rate limit delay must be 0';
const MARKER_PUT_BACK_WHILE_JOBS_WAIT =
  '  if rcall("LLEN", KEYS[1]) > 0 or rcall("ZCARD", KEYS[3]) > 0 then addBaseMarkerIfNeeded(markerKey, false) end\n  -- rate limit delay must be 0';

/** The scripts as BullMQ ships them, and the version it names its commands with; undefined if an upgrade moved them. */
function bullmqScripts(): { version: string; scripts: LuaScript[] } | undefined {
  try {
    const { version } = require('bullmq/dist/cjs/version.js') as { version: string };
    const { moveToActive } = require('bullmq/dist/cjs/scripts/moveToActive-11.js') as { moveToActive?: LuaScript };
    const { moveToFinished } = require('bullmq/dist/cjs/scripts/moveToFinished-14.js') as { moveToFinished?: LuaScript };
    return typeof version === 'string' && moveToActive && moveToFinished ? { version, scripts: [moveToActive, moveToFinished] } : undefined;
  } catch {
    return undefined;
  }
}

/** Scripts with the marker put back only while a job waits; undefined unless each has the line exactly once. */
export function withQuietMarker(scripts: LuaScript[]): LuaScript[] | undefined {
  const applies = scripts.every((script) => script.content.split(MARKER_PUT_BACK).length === 2);
  return applies ? scripts.map((script) => ({ ...script, content: script.content.replace(MARKER_PUT_BACK, MARKER_PUT_BACK_WHILE_JOBS_WAIT) })) : undefined;
}

/** The installed BullMQ's two scripts, rewritten; undefined if its text is not the one this was written against. */
export function markerScripts(): { version: string; scripts: LuaScript[] } | undefined {
  const shipped = bullmqScripts();
  const rewritten = shipped && withQuietMarker(shipped.scripts);
  return rewritten && { version: shipped.version, scripts: rewritten };
}

/**
 * Defines those scripts on a connection under the names BullMQ runs them by: BullMQ defines a
 * command only where the connection lacks it, and a definition replaces an earlier one. Returns
 * false (and changes nothing) when the installed BullMQ's scripts differ from the ones this was
 * written against, or the connection is options rather than an ioredis client (BullMQ makes its own).
 */
export function defineMarkerScripts(connection: unknown): boolean {
  const client = connection as Partial<Pick<Redis, 'defineCommand'>>;
  const found = typeof client.defineCommand === 'function' ? markerScripts() : undefined;
  if (!found) return false;
  for (const script of found.scripts) {
    client.defineCommand!(`${script.name}:${found.version}`, { numberOfKeys: script.keys, lua: script.content });
  }
  return true;
}
