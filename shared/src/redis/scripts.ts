import type { Redis } from 'ioredis';

/**
 * A Lua script run as an ioredis custom command (EVALSHA, falling back to EVAL once per
 * connection). A connection with auto-pipelining needs it defined before its first command:
 * defined later, while an auto-pipeline is open, that pipeline lacks the command and ioredis
 * crashes the process when it answers (redis/ioredis#1931; it killed a worker in the chaos suite).
 * So `run` defines it on demand only on a plain connection and refuses an auto-pipelined one,
 * naming `definedBy`, the function its creator should have called.
 */
export function redisScript<Args extends (string | number)[], Result>(name: string, lua: string, options: { numberOfKeys: number; definedBy: string }) {
  const commandOf = (redis: Redis) => (redis as unknown as Record<string, ((...args: Args) => Promise<Result>) | undefined>)[name];
  const define = (redis: Redis): void => {
    if (!commandOf(redis)) redis.defineCommand(name, { numberOfKeys: options.numberOfKeys, lua });
  };
  return {
    define,
    run: async (redis: Redis, ...args: Args): Promise<Result> => {
      if (!commandOf(redis)) {
        if (redis.options.enableAutoPipelining) throw new Error(`An auto-pipelined connection needs ${options.definedBy} when it is created`);
        define(redis);
      }
      return commandOf(redis)!.call(redis, ...args);
    },
  };
}
