import { parseArgs } from 'node:util';
import { z } from 'zod';

export const SCENARIOS = ['text', 'tool', 'approval', 'fanout'] as const;

const optionsSchema = z.object({
  runs: z.coerce.number().int().min(1).max(100_000).default(100),
  concurrency: z.coerce.number().int().min(1).max(2_000).default(10),
  scenario: z.enum(SCENARIOS).default('text'),
  workers: z.coerce.number().int().min(1).max(32).default(2),
  subscribers: z.coerce.number().int().min(1).max(100).default(10),
  out: z.string().optional(),
  /** An already running agentq to target instead of starting one (needs --email/--password of an admin). */
  url: z.string().url().optional(),
  email: z.string().optional(),
  password: z.string().optional(),
  /** The fake model's latency model. */
  ttft: z.coerce.number().int().min(0).default(100),
  interval: z.coerce.number().int().min(0).default(10),
  tokens: z.coerce.number().int().min(1).max(10_000).default(50),
  workerConcurrency: z.coerce.number().int().min(1).max(1000).default(50),
  /** Write CPU profiles of the API and worker processes into this folder. */
  profile: z.string().optional(),
  quiet: z.boolean().default(false),
  /** Start each run with a POST that answers its stream (Accept: text/event-stream) instead of 202 and a GET. */
  oneRequest: z.boolean().default(false),
});

export type HarnessOptions = z.infer<typeof optionsSchema>;

/** `npm run loadtest -- --runs N --concurrency C --scenario text|tool|approval|fanout [--workers K] [--subscribers S] [--one-request] [--out FILE]` */
export function parseHarnessOptions(argv: string[]): HarnessOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string' },
      concurrency: { type: 'string' },
      scenario: { type: 'string' },
      workers: { type: 'string' },
      subscribers: { type: 'string' },
      out: { type: 'string' },
      url: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      ttft: { type: 'string' },
      interval: { type: 'string' },
      tokens: { type: 'string' },
      'worker-concurrency': { type: 'string' },
      profile: { type: 'string' },
      quiet: { type: 'boolean' },
      'one-request': { type: 'boolean' },
    },
    strict: true,
  });
  const parsed = optionsSchema.safeParse({ ...values, workerConcurrency: values['worker-concurrency'], oneRequest: values['one-request'] });
  if (!parsed.success) {
    throw new Error(`Invalid options:\n${parsed.error.issues.map((issue) => `  --${issue.path.join('.')}: ${issue.message}`).join('\n')}`);
  }
  return parsed.data;
}
