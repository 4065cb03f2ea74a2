import { createInterface } from 'node:readline/promises';
import { createDb } from '@agentq/shared/db';
import { getEnv } from '@agentq/shared/env';
import { createUser, createUserInputSchema } from '@agentq/shared/services';

/** `npm run create-admin -- --email a@b.c [--name N] [--password P]`: prompts for what is missing. */
const args = new Map<string, string>();
const argv = process.argv.slice(2);
for (let index = 0; index < argv.length; index += 2) args.set(argv[index]!.replace(/^--/, ''), argv[index + 1] ?? '');

const prompt = createInterface({ input: process.stdin, output: process.stdout });
const email = args.get('email') ?? (await prompt.question('Email: '));
const name = args.get('name') ?? 'Administrator';
const password = args.get('password') ?? process.env.ADMIN_PASSWORD ?? (await prompt.question('Password (8+ characters): '));
prompt.close();

const parsed = createUserInputSchema.safeParse({ email, name, password, role: 'admin' });
if (!parsed.success) {
  for (const issue of parsed.error.issues) console.error(`${issue.path.join('.')}: ${issue.message}`);
  process.exit(2);
}
const env = getEnv();
const database = await createDb({ url: env.DATABASE_URL, dataDir: env.DATA_DIR });
await database.migrate();
try {
  const user = await createUser(database.db, parsed.data);
  console.log(`Created admin ${user.email} (${user.id})`);
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await database.close();
}
