import { Hono } from 'hono';
import { openAPIRouteHandler } from 'hono-openapi';
import { randomUUID } from 'node:crypto';
import { CHAT_FILE_UPLOAD_LIMIT_BYTES, TRANSCRIPTION_UPLOAD_LIMIT_BYTES } from '@agentq/shared/services';
import type { AppDeps, AppEnv } from './deps';
import { ApiError, handleError } from './errors';
import { identify } from './middleware/auth';
import { bodySizeLimit } from './middleware/body-size-limit';
import { jsonBody } from './middleware/json-body';
import { SessionActivity } from './middleware/session-activity';
import { securityHeaders } from './middleware/security-headers';
import { observeRequests } from './middleware/observe-requests';
import { sameOriginWrites } from './middleware/same-origin';
import { createAppMetrics } from './operations/metrics';
import { adminRoutes } from './routes/admin';
import { agentRoutes } from './routes/agents';
import { authRoutes } from './routes/auth';
import { adminBannerRoutes, bannerRoutes } from './routes/banners';
import { oidcRoutes } from './routes/oidc';
import { signUpRoutes } from './routes/sign-up';
import { accountEmailRoutes } from './routes/account-email';
import { docsRoutes } from './routes/docs';
import { documentRoutes } from './routes/documents';
import { healthRoutes } from './routes/health';
import { metricsRoutes } from './routes/metrics';
import { CreatedRuns } from './routes/created-runs';
import { QUEUE_BOARD_PATH, queueBoardAccess, queueBoardRoutes } from './routes/queue-board';
import { modelRoutes } from './routes/models';
import { approvalRoutes } from './routes/approvals';
import { runRoutes } from './routes/runs';
import { CHAT_IMPORT_LIMIT_BYTES, CHAT_IMPORT_PATH, chatOptionRoutes, sessionRoutes } from './routes/sessions';
import { CHAT_FILE_UPLOAD_PATH, chatFileRoutes } from './routes/chat-files';
import { KNOWLEDGE_UPLOAD_PATH, knowledgeRoutes } from './routes/knowledge';
import { webPageRoutes } from './routes/web-pages';
import { chatFolderRoutes } from './routes/chat-folders';
import { chatTagRoutes } from './routes/chat-tags';
import { sharedChatRoutes } from './routes/shared-chats';
import { promptRoutes } from './routes/prompts';
import { scheduleRoutes } from './routes/schedules';
import { agentToolRoutes, toolLogRoutes, toolTypeRoutes } from './routes/tools';
import { TRANSCRIPTION_PATH, transcriptionRoutes } from './routes/transcriptions';
import { usageRoutes } from './routes/usage';
import { usageLimitRoutes } from './routes/usage-limits';
import { webhookRoutes } from './routes/webhooks';
import { groupRoutes } from './routes/groups';
import { userRoutes } from './routes/users';

export type { AppDeps, AppEnv } from './deps';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Routes under /api, chained so `AppType` types the web client. */
function apiRoutes() {
  return new Hono<AppEnv>()
    .route('/', healthRoutes)
    .route('/auth', authRoutes)
    .route('/auth', oidcRoutes)
    .route('/auth', signUpRoutes)
    .route('/auth', accountEmailRoutes)
    .route('/users', userRoutes)
    .route('/groups', groupRoutes)
    .route('/tool-types', toolTypeRoutes)
    .route('/agent-tools', agentToolRoutes)
    .route('/tool-logs', toolLogRoutes)
    .route('/models', modelRoutes)
    .route('/agents', agentRoutes)
    .route('/chat-options', chatOptionRoutes)
    .route('/sessions/:id/files', chatFileRoutes)
    .route('/transcriptions', transcriptionRoutes)
    .route('/sessions', sessionRoutes)
    .route('/shared', sharedChatRoutes)
    .route('/prompts', promptRoutes)
    .route('/schedules', scheduleRoutes)
    .route('/webhooks', webhookRoutes)
    .route('/folders', chatFolderRoutes)
    .route('/tags', chatTagRoutes)
    .route('/runs', runRoutes)
    .route('/approvals', approvalRoutes)
    .route('/agent-documents', documentRoutes)
    .route('/knowledge', knowledgeRoutes)
    .route('/web-pages', webPageRoutes)
    .route('/usage', usageRoutes)
    .route('/banners', bannerRoutes)
    .route('/admin/usage-limits', usageLimitRoutes)
    .route('/admin/banners', adminBannerRoutes)
    .route('/admin', adminRoutes);
}

export type AppType = ReturnType<typeof apiRoutes>;

/**
 * The whole HTTP surface with its dependencies injected.
 * @example
 * serve({ fetch: createApp({ db, redis, queues, logger, config }).fetch, port: 3000 });
 */
export function createApp(deps: AppDeps) {
  const api = apiRoutes();
  const app = new Hono<AppEnv>();
  const metrics = createAppMetrics(deps, { processMetrics: deps.config.processMetrics });
  const createdRuns = new CreatedRuns();
  const sessionActivity = new SessionActivity(deps.config.sessionActivityIntervalMs);

  app.use(async function injectDependencies(c, next) {
    for (const [key, value] of Object.entries(deps)) c.set(key as keyof AppDeps, value as never);
    // A caller's id is kept for tracing across services, but only if it cannot forge log content.
    const incoming = c.req.header('x-request-id');
    c.set('requestId', incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID());
    c.set('user', null);
    c.set('credential', null);
    c.set('metrics', metrics);
    c.set('createdRuns', createdRuns);
    c.set('sessionActivity', sessionActivity);
    await next();
  });
  app.use(securityHeaders({ https: deps.config.publicOrigin?.startsWith('https:') ?? deps.config.secureCookies }));
  app.use(observeRequests(metrics));
  // Every body the API reads (its routes and the queue board's): the size limit (413), then the one
  // JSON parser, depth-limited, parsed once and handed to the validators (and to bull-board).
  const largerBodies = [
    { path: CHAT_IMPORT_PATH, maxBytes: deps.config.chatImportLimitBytes ?? CHAT_IMPORT_LIMIT_BYTES },
    { path: CHAT_FILE_UPLOAD_PATH, maxBytes: CHAT_FILE_UPLOAD_LIMIT_BYTES },
    { path: KNOWLEDGE_UPLOAD_PATH, maxBytes: CHAT_FILE_UPLOAD_LIMIT_BYTES },
    { path: TRANSCRIPTION_PATH, maxBytes: TRANSCRIPTION_UPLOAD_LIMIT_BYTES },
  ];
  const bodyLimits = [bodySizeLimit(deps.config.bodyLimitBytes, largerBodies), jsonBody(deps.config.jsonMaxDepth)];
  app.use('/api/*', ...bodyLimits);
  app.use('/api/*', sameOriginWrites);
  app.use('/api/*', identify);

  app.get(
    '/api/openapi.json',
    openAPIRouteHandler(api, {
      documentation: {
        openapi: '3.1.0',
        info: { title: 'agentq API', version: '0.1.0', description: 'Agent tool-calling platform: runs, tools, approvals, documents.' },
        servers: [{ url: '/api' }],
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'API token from POST /api/auth/tokens' },
            cookie: { type: 'apiKey', in: 'cookie', name: 'aq_session' },
          },
        },
        security: [{ bearer: [] }, { cookie: [] }],
      },
    }),
  );
  app.route('/api/docs', docsRoutes);
  app.route('/api', api);

  // Operations, outside /api where scrapers and operators expect them (SPEC §6).
  app.use('/metrics', identify);
  app.route('/metrics', metricsRoutes(metrics));
  app.use(`${QUEUE_BOARD_PATH}/*`, ...bodyLimits, sameOriginWrites, identify, queueBoardAccess);
  app.get(`${QUEUE_BOARD_PATH}/`, (c) => c.redirect(QUEUE_BOARD_PATH, 301));
  app.route(QUEUE_BOARD_PATH, queueBoardRoutes(deps.queues));

  app.notFound((c) => c.json({ error: { code: 'not_found', message: `No route for ${c.req.method} ${c.req.path}` } }, 404));
  app.onError(handleError);
  return app;
}
