import type { ProcessorMap } from '../processor';
import { processAccountEmail } from './account-email';
import { processChatTurn } from './chat-turn';
import { processKnowledgeIngestion } from './knowledge-ingestion';
import { processScheduleFire } from './schedule-fire';
import { processToolExecution } from './tool-execution';
import { processWebhookDelivery } from './webhook-delivery';

/** Every catalog job has its processor; `satisfies` turns a missing one into a compile error. */
export const processors = {
  chatTurns: { 'chat-turn': processChatTurn },
  toolExecutions: { 'tool-exec': processToolExecution },
  scheduleFires: { 'schedule-fire': processScheduleFire },
  webhookDeliveries: { 'webhook-delivery': processWebhookDelivery },
  knowledgeIngestions: { 'knowledge-ingestion': processKnowledgeIngestion },
  accountEmails: { 'account-email': processAccountEmail },
} satisfies ProcessorMap;
