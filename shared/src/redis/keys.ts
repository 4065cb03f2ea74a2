import { isClusterTarget, type RedisTarget } from './target';

/**
 * Every Redis key and channel agentq uses starts from the installation prefix (QUEUE_PREFIX).
 * On a Redis Cluster, keys used together in one command, MULTI or Lua script must hash to one
 * slot, so the prefix becomes a hash tag `{agentq}`: BullMQ's scripts, worker heartbeats and
 * throttling counters then live in one slot. Per-run keys carry the run id as their own tag
 * (`agentq:run:{run_…}:events`), so runs spread over the cluster's masters.
 */
export function keyPrefixFor(target: RedisTarget, prefix: string): string {
  if (!isClusterTarget(target) || /\{.+\}/.test(prefix)) return prefix;
  return `{${prefix}}`;
}

/** The prefix without hash-tag braces, for keys that carry a tag of their own. */
export function untaggedPrefix(prefix: string): string {
  return prefix.replace(/[{}]/g, '');
}

/** A key under the installation prefix (in the prefix's slot on a cluster): `prefixedKey('{agentq}', 'login', ip)`. */
export function prefixedKey(prefix: string, ...parts: string[]): string {
  return [prefix, ...parts].join(':');
}

/** A key in a slot of its own, chosen by `tag` (e.g. a run id): `agentq:run:{run_x}:events`. */
export function taggedKey(prefix: string, kind: string, tag: string, ...parts: string[]): string {
  return [untaggedPrefix(prefix), kind, `{${tag}}`, ...parts].join(':');
}
