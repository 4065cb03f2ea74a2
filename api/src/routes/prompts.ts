import { createPrompt, createPromptInputSchema, deletePrompt, listPrompts, sharingChange, updatePrompt, updatePromptInputSchema, type Prompt, type PromptActor } from '@agentq/shared/services';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

function promptActor(c: Context<AppEnv>): PromptActor {
  const user = currentUser(c);
  return { userId: user.id, isAdmin: user.role === 'admin', groupIds: user.groupIds };
}

/** Notes in the audit log an admin sharing a prompt, changing whom with, or taking it back (a delete included). */
async function auditSharing(c: Context<AppEnv>, previous: Prompt | null, current: Prompt | null): Promise<void> {
  const change = sharingChange(previous, current);
  if (!change) return;
  const prompt = (current ?? previous)!;
  await audit(c, { action: `prompt.${change}`, targetType: 'prompt', targetId: prompt.id, details: { name: `/${prompt.command}`, ...(change === 'share' && { groupIds: prompt.groupIds }) } });
}

/**
 * The signed-in user's saved prompts, called up in the composer with `/command`, and the prompts
 * admins shared with them (read-only: changing one answers 404, as for any prompt not theirs).
 */
export const promptRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get(
    '/',
    describeRoute({ tags: ['chat'], summary: 'Your saved prompts and those shared with you, by command: `owned` false and `sharedBy` (a name) for a shared one; your own wins a command both use' }),
    async (c) => c.json({ items: await listPrompts(c.get('db'), promptActor(c)) }),
  )
  .post(
    '/',
    describeRoute({
      tags: ['chat'],
      summary: 'Save a prompt: `command` (what follows the /), `title`, `content` (`{{name}}` marks what to fill in); admins may set `shared` and `groupIds` (empty: everyone), 403 for others; 409 when the command is taken',
    }),
    validate('json', createPromptInputSchema),
    async (c) => {
      const prompt = await createPrompt(c.get('db'), promptActor(c), c.req.valid('json'));
      await auditSharing(c, null, prompt);
      return c.json(prompt, 201);
    },
  )
  .patch('/:id', describeRoute({ tags: ['chat'], summary: 'Change one of your saved prompts (sharing: admins only)' }), validate('param', idParam), validate('json', updatePromptInputSchema), async (c) => {
    const { prompt, previous } = await updatePrompt(c.get('db'), promptActor(c), c.req.valid('param').id, c.req.valid('json'));
    await auditSharing(c, previous, prompt);
    return c.json(prompt);
  })
  .delete('/:id', describeRoute({ tags: ['chat'], summary: 'Delete one of your saved prompts' }), validate('param', idParam), async (c) => {
    const deleted = await deletePrompt(c.get('db'), currentUser(c).id, c.req.valid('param').id);
    await auditSharing(c, deleted, null);
    return c.body(null, 204);
  });
