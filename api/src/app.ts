import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { openAPIRouteHandler } from 'hono-openapi';
import { randomUUID } from 'node:crypto';
import type { AppDeps, AppEnv } from './deps';
import { ApiError, handleError } from './errors';
import { identify } from './middleware/auth';
import { sameOriginWrites } from './middleware/same-origin';
import { agentRoutes } from './routes/agents';
import { authRoutes } from './routes/auth';
import { docsRoutes } from './routes/docs';
import { healthRoutes } from './routes/health';
import { modelRoutes } from './routes/models';
import { approvalRoutes } from './routes/approvals';
import { runRoutes } from './routes/runs';
import { chatOptionRoutes, sessionRoutes } from './routes/sessions';
import { agentToolRoutes, toolLogRoutes, toolTypeRoutes } from './routes/tools';
import { userRoutes } from './routes/users';

export type { AppDeps, AppEnv } from './deps';

/** Routes under /api, chained so `AppType` types the web client. */
function apiRoutes() {
  return new Hono<AppEnv>()
    .route('/', healthRoutes)
    .route('/auth', authRoutes)
    .route('/users', userRoutes)
    .route('/tool-types', toolTypeRoutes)
    .route('/agent-tools', agentToolRoutes)
    .route('/tool-logs', toolLogRoutes)
    .route('/models', modelRoutes)
    .route('/agents', agentRoutes)
    .route('/chat-options', chatOptionRoutes)
    .route('/sessions', sessionRoutes)
    .route('/runs', runRoutes)
    .route('/approvals', approvalRoutes);
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

  app.use(async function injectDependencies(c, next) {
    for (const [key, value] of Object.entries(deps)) c.set(key as keyof AppDeps, value as never);
    c.set('requestId', c.req.header('x-request-id') ?? randomUUID());
    c.set('user', null);
    await next();
  });
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: deps.config.bodyLimitBytes,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', `Request body exceeds ${deps.config.bodyLimitBytes} bytes`);
      },
    }),
  );
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

  app.notFound((c) => c.json({ error: { code: 'not_found', message: `No route for ${c.req.method} ${c.req.path}` } }, 404));
  app.onError(handleError);
  return app;
}
