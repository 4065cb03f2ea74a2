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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** A sortable, unguessable id such as `run_m3k2x1a0_9f8e7d6c5b4a`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${Date.now().toString(36)}_${randomBytes(6).toString('hex')}`;
}
