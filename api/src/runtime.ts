import type { Database } from '@agentq/shared/db';
import type { Env } from '@agentq/shared/env';
import type { Logger } from '@agentq/shared/logger';
import { createJobWaiter, createQueues } from '@agentq/shared/queues';
import { checkEvictionPolicy, createApiRedis, createSubscriberRedis, keyPrefixFor } from '@agentq/shared/redis';
import { RunEventHub } from '@agentq/shared/run-stream';
import { createOidcProvider, describeSmtp, ensureAdmin, ensureDefaultAgent, oidcSettingsFromEnv, seedModelFromEnv, smtpSettingsFromEnv, startConfigCache } from '@agentq/shared/services';
import { createApp } from './app';
import { startApprovalSweeper } from './approval-sweeper';
import { trustedProxies } from './security/client-address';

/** Wires the app to its connections; used by the API process and the all-in-one server. */
export async function createApiRuntime(options: { env: Env; db: Database; redisUrl: string; logger: Logger }) {
  const { env, db, logger } = options;
  const appSecret = env.APP_SECRET;
  if (!appSecret) {
    throw Object.assign(
      new Error('APP_SECRET is not set: the API needs it to encrypt model API keys. Set it to a random string of 16+ characters (e.g. `openssl rand -base64 32`), the same for the API and every worker. `npm start` generates one by itself.'),
      { userFacing: true },
    );
  }
  const redis = createApiRedis(options.redisUrl);
  redis.on('error', (error) => logger.debug({ err: error }, 'api redis connection error'));
  void checkEvictionPolicy(redis, logger);
  const prefix = keyPrefixFor(options.redisUrl, env.QUEUE_PREFIX);
  const queues = createQueues(redis, prefix);
  const jobs = createJobWaiter(options.redisUrl, queues);
  // Subscriber connections must keep retrying: SSE followers resume when Redis comes back.
  const subscriber = createSubscriberRedis(options.redisUrl);
  subscriber.on('error', (error) => logger.debug({ err: error }, 'api subscriber connection error'));
  const runEvents = new RunEventHub(subscriber, prefix);
  // Models, agents and tools are read through a per-process cache that other processes' changes invalidate.
  const configSubscriber = createSubscriberRedis(options.redisUrl);
  configSubscriber.on('error', () => {});
  const configCache = await startConfigCache(db, {
    publisher: redis,
    subscriber: configSubscriber,
    prefix,
    onError: (error) => logger.warn({ err: error }, 'config cache: invalidation not delivered'),
  });
  if (env.ADMIN_EMAIL && env.ADMIN_PASSWORD && (await ensureAdmin(db, env.ADMIN_EMAIL, env.ADMIN_PASSWORD))) {
    logger.info({ email: env.ADMIN_EMAIL }, 'bootstrap admin created');
  }
  const seeded = await seedModelFromEnv(db, { baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY, model: env.LLM_MODEL }, appSecret);
  if (seeded?.created) logger.info({ modelId: seeded.model.modelId, baseUrl: seeded.model.baseUrl }, 'model seeded from LLM_BASE_URL/LLM_MODEL');
  const defaultAgent = await ensureDefaultAgent(db);
  if (defaultAgent.created) logger.info({ agentId: defaultAgent.agent.id }, 'default agent created');
  const oidcSettings = oidcSettingsFromEnv(env);
  if (oidcSettings) logger.info({ issuer: oidcSettings.issuer.href, redirectUri: oidcSettings.redirectUri }, 'single sign-on (OpenID Connect) is on');
  const smtp = smtpSettingsFromEnv(env);
  if (smtp) logger.info({ smtp: describeSmtp(smtp), verifySignUps: env.SIGNUP_VERIFY_EMAIL }, 'email is on: password reset links (and sign-up verification) go out through SMTP');
  const app = createApp({
    db,
    redis,
    queues,
    jobs,
    runEvents,
    logger,
    oidc: oidcSettings && createOidcProvider(oidcSettings),
    config: {
      secureCookies: env.PUBLIC_ORIGIN?.startsWith('https:') ?? false,
      bodyLimitBytes: 1024 * 1024,
      appSecret,
      sseHeartbeatSeconds: 15,
      metricsToken: env.METRICS_TOKEN,
      processMetrics: true,
      allowPrivateNetworks: env.FETCH_ALLOW_PRIVATE_NETWORKS,
      mcpStdioCommands: env.MCP_STDIO_COMMANDS,
      publicOrigin: env.PUBLIC_ORIGIN,
      trustedProxies: trustedProxies(env.TRUSTED_PROXIES),
      signUp: env.SIGNUP === 'off' ? undefined : { mode: env.SIGNUP, emailDomains: env.SIGNUP_EMAIL_DOMAINS },
      email: smtp && { verifySignUps: env.SIGNUP_VERIFY_EMAIL },
    },
  });
  const sweeper = startApprovalSweeper(db, queues, logger);
  return {
    app,
    close: async () => {
      sweeper.stop();
      await jobs.close();
      await configCache.close();
      configSubscriber.disconnect();
      subscriber.disconnect();
      await queues.close().catch(() => {});
      redis.disconnect();
    },
  };
}
