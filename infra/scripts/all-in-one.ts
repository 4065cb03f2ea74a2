import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { securityHeaders } from '@agentq/shared/http';
import { createApiRuntime } from '@agentq/api/runtime';
import { createDb, databaseOptionsFromEnv } from '@agentq/shared/db';
import type { Env } from '@agentq/shared/env';
import type { Logger } from '@agentq/shared/logger';
import { countUsers, createUser, seedModelFromEnv, smtpSettingsFromEnv } from '@agentq/shared/services';
import { startWorkerRuntime } from '@agentq/worker/runtime';
import { startDemoModel } from './demo-model';
import { ensureStarterTools } from './starter-tools';
import { hasRedisServer, REDIS_MISSING_MESSAGE, startRedisChild } from './redis-child';

const API_PREFIXES = ['/api/', '/api', '/metrics', '/admin/queues'];

type SvelteKitHandler = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

async function loadWebHandler(repoRoot: string): Promise<SvelteKitHandler> {
  const handlerPath = resolve(repoRoot, 'web/build/handler.js');
  if (!existsSync(handlerPath)) throw new Error(`The web app is not built (${handlerPath} missing): run \`npm run build -w web\``);
  const module = (await import(pathToFileURL(handlerPath).href)) as { handler: SvelteKitHandler };
  return module.handler;
}

/** First run without ADMIN_EMAIL/ADMIN_PASSWORD: create an admin with a generated password and say so. */
async function ensureFirstAdmin(db: Awaited<ReturnType<typeof createDb>>['db'], dataDir: string, logger: Logger) {
  if ((await countUsers(db)) > 0) return undefined;
  const email = 'admin@agentq.local';
  const password = randomBytes(9).toString('base64url');
  await createUser(db, { email, name: 'Administrator', password, role: 'admin' });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(resolve(dataDir, 'initial-admin.txt'), `email: ${email}\npassword: ${password}\n`, { mode: 0o600 });
  logger.info({ email }, 'created the first admin; its password is in .data/initial-admin.txt');
  return { email, password };
}

/** A stable APP_SECRET for the all-in-one mode, kept beside the data. */
function appSecret(env: Env, dataDir: string): string {
  if (env.APP_SECRET) return env.APP_SECRET;
  const file = resolve(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * Web + API + worker in one Node process on one port (`npm start`).
 * PGlite when DATABASE_URL is unset, a redis-server child when REDIS_URL is unset.
 */
export async function startAllInOne(options: { env: Env; logger: Logger; repoRoot: string }) {
  const { logger, repoRoot } = options;
  const dataDir = resolve(repoRoot, options.env.DATA_DIR);
  const env = { ...options.env, APP_SECRET: appSecret(options.env, dataDir) };
  const cleanups: Array<() => Promise<void>> = [];

  let redisUrl = env.REDIS_URL;
  if (!redisUrl) {
    if (!hasRedisServer()) throw Object.assign(new Error(REDIS_MISSING_MESSAGE), { userFacing: true });
    const redisChild = await startRedisChild(dataDir);
    redisUrl = redisChild.url;
    cleanups.unshift(redisChild.stop);
    logger.info({ url: redisUrl }, 'started a local redis-server');
  }

  const database = await createDb({ ...databaseOptionsFromEnv(env), dataDir });
  cleanups.unshift(database.close);
  await database.migrate();
  const firstAdmin = env.ADMIN_EMAIL ? undefined : await ensureFirstAdmin(database.db, dataDir, logger);

  // The operator's model first, so the demo model can see that a real one exists.
  const seeded = await seedModelFromEnv(database.db, { baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY, model: env.LLM_MODEL }, env.APP_SECRET);
  if (seeded?.created) logger.info({ modelId: seeded.model.modelId, baseUrl: seeded.model.baseUrl }, 'model seeded from LLM_BASE_URL/LLM_MODEL (the default model)');
  if (env.DEMO_MODEL) {
    const demo = await startDemoModel(database.db);
    if (demo.started) cleanups.unshift(() => demo.llm.close());
    else logger.info(`scripted demo model not registered: ${demo.reason}`);
  }
  if (env.STARTER_TOOLS) {
    const created = await ensureStarterTools(database.db);
    if (created) logger.info({ count: created }, 'created the starter tools (web fetch, calculator, date and time, documents and memory)');
  }
  const api = await createApiRuntime({ env, db: database.db, redisUrl, logger });
  cleanups.unshift(api.close);

  const workers = startWorkerRuntime({
    db: database.db,
    redisUrl,
    prefix: env.QUEUE_PREFIX,
    appSecret: env.APP_SECRET,
    approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS,
    modelStallTimeoutMs: env.MODEL_STALL_TIMEOUT_MS,
    reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
    logger,
    concurrency: env.WORKER_CONCURRENCY,
    allowPrivateNetworks: env.FETCH_ALLOW_PRIVATE_NETWORKS,
    mcpStdioCommands: env.MCP_STDIO_COMMANDS,
    lockDurationMs: env.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: env.WORKER_STALLED_INTERVAL_MS,
    // API and workers share this process's pool: opening it once serves both.
    warmDatabase: database.warm,
    smtp: smtpSettingsFromEnv(env),
  });
  cleanups.unshift(async () => {
    await workers.close(env.WORKER_SHUTDOWN_DEADLINE_MS);
  });

  const apiListener = getRequestListener(api.app.fetch);
  const webHandler = await loadWebHandler(repoRoot);
  // Web responses (static assets included) carry the same security headers as the API's; pages add
  // their own CSP (kit.csp). No default CSP here: a 304 would replace a cached page's policy with it.
  const webHeaders = Object.entries(securityHeaders({ https: env.PUBLIC_ORIGIN?.startsWith('https:') ?? false }));
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (API_PREFIXES.some((prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`) || path.startsWith(`${prefix}?`))) {
      void apiListener(request, response);
      return;
    }
    for (const [name, value] of webHeaders) response.setHeader(name, value);
    webHandler(request, response, () => {
      response.statusCode = 404;
      response.end('Not found');
    });
  });
  await new Promise<void>((done) => server.listen(env.PORT, env.HOST, done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  cleanups.unshift(() => new Promise<void>((done) => server.close(() => done())));
  server.closeIdleConnections?.();

  return {
    port,
    url: `http://localhost:${port}`,
    firstAdmin,
    database: database.kind,
    stop: async () => {
      server.closeAllConnections?.();
      for (const cleanup of cleanups) await cleanup().catch((error) => logger.warn({ err: error }, 'cleanup failed'));
    },
  };
}
