import { randomBytes } from 'node:crypto';

/** Id prefixes per entity, as in the seeds: `prefix_{timestamp36}_{random}`. */
export const ID_PREFIXES = {
  user: 'usr',
  session: 'ses',
  apiToken: 'tok',
  model: 'mdl',
  agent: 'agt',
  tool: 'at',
  toolLog: 'atl',
  chatSession: 'cs',
  message: 'msg',
  run: 'run',
  approval: 'apr',
  document: 'ad',
  revision: 'adr',
  prompt: 'prm',
  file: 'fil',
  folder: 'fld',
  tag: 'tag',
  schedule: 'sch',
  webhook: 'whk',
  webhookDelivery: 'whd',
  webhookEvent: 'evt',
  group: 'grp',
  knowledgeBase: 'kb',
  knowledgeFile: 'kbf',
  banner: 'bnr',
  emailToken: 'emt',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const RANDOM_BYTES = 6;
// One CSPRNG call per 4 KiB rather than per id (each call is a system call, ~10 µs here; an enqueue
// makes three ids). Every id still gets bytes of its own: the pool is never reused.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

/** A sortable, unguessable id such as `run_m3k2x1a0_9f8e7d6c5b4a`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${Date.now().toString(36)}_${randomHex(RANDOM_BYTES)}`;
}
