import './env-file.mjs';
import { parseArgs } from 'node:util';
import { createDb, databaseOptionsFromEnv } from '@agentq/shared/db';
import { getEnv } from '@agentq/shared/env';
import { createUser, createUserInputSchema } from '@agentq/shared/services';

const USAGE = `Usage: npm run create-admin -- --email you@example.com [--name "Ops"] (--password-stdin | --password P)
  The password comes from --password-stdin (first line of stdin), --password, or ADMIN_PASSWORD;
  the email may also come from ADMIN_EMAIL. Uses DATABASE_URL (or the embedded database in DATA_DIR).`;

/**
 * `npm run create-admin`: adds an admin account without a terminal (scripts, CI, containers).
 * Never prompts: a missing value is an error that says which flag or variable to use.
 */
async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        email: { type: 'string' },
        name: { type: 'string', default: 'Administrator' },
        password: { type: 'string' },
        'password-stdin': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const email = values.email ?? process.env.ADMIN_EMAIL;
  const password = values['password-stdin'] ? await readFirstLine(process.stdin) : (values.password ?? process.env.ADMIN_PASSWORD);
  if (!email || !password) {
    console.error(`${!email ? 'No email given' : 'No password given'}.\n${USAGE}`);
    return 2;
  }
  const parsed = createUserInputSchema.safeParse({ email, name: values.name, password, role: 'admin' });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`${issue.path.join('.')}: ${issue.message}`);
    return 2;
  }
  const env = getEnv();
  const database = await createDb({ ...databaseOptionsFromEnv(env), poolSize: 1 });
  try {
    await database.migrate();
    const user = await createUser(database.db, parsed.data);
    console.log(`Created admin ${user.email} (${user.id})`);
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  } finally {
    await database.close();
  }
}

/** The first line of a stream (a trailing newline from `echo` or a file is not part of the password). */
async function readFirstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

process.exitCode = await main();
