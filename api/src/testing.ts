import { createQueues } from '@agentq/shared/queues';
import { createApiRedis } from '@agentq/shared/redis';
import { createUser } from '@agentq/shared/services';
import { openTestDb, randomPrefix, silentLogger, testRedisUrl, uniqueEmail } from '@agentq/shared/testing';
import { createApp } from './app';

/** The real app on the real test database and Redis, with a queue prefix of its own. */
export async function createTestApp(options: { redisUrl?: string } = {}) {
  const database = await openTestDb();
  const redis = createApiRedis(options.redisUrl ?? testRedisUrl());
  redis.on('error', () => {});
  const queues = createQueues(redis, randomPrefix('api'));
  const app = createApp({ db: database.db, redis, queues, logger: silentLogger, config: { secureCookies: false, bodyLimitBytes: 64 * 1024 } });

  async function signUp(role: 'admin' | 'user' = 'user') {
    const email = uniqueEmail(role);
    const password = 'correct horse battery';
    const user = await createUser(database.db, { email, name: `Test ${role}`, password, role });
    const response = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    const cookie = response.headers.get('set-cookie')?.split(';')[0] ?? '';
    return { user, email, password, cookie, headers: { cookie, 'content-type': 'application/json' } };
  }

  return {
    app,
    db: database.db,
    redis,
    queues,
    signUp,
    close: async () => {
      await queues.close();
      redis.disconnect();
      await database.close();
    },
  };
}
