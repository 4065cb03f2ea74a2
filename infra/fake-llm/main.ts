/**
 * Serves the scripted demo model for manual use, so the whole flow can be watched without
 * an API key: `npm run demo-model -- --port 4010 [--host 0.0.0.0] [--ttft 300 --interval 30]`.
 * Point an OpenAI-compatible model at http://127.0.0.1:4010/v1 with any API key and model id.
 * The directives it understands are listed in demo-model.ts.
 */
import { parseArgs } from 'node:util';
import { lastUserMessageText } from './scripts';
import { startFakeLlm } from './server';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4010' },
    host: { type: 'string', default: '127.0.0.1' },
    ttft: { type: 'string', default: '250' },
    interval: { type: 'string', default: '25' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(
    'Usage: npm run demo-model -- [--port 4010] [--host 127.0.0.1] [--ttft ms] [--interval ms]\n' +
      'Serves the scripted demo model (no LLM involved).\n' +
      'Directives: [[tool:NAME {json}]], [[think]], [[fail]], [[empty]], [[drop]], [[slow]] (see demo-model.ts).',
  );
  process.exit(0);
}

const llm = await startFakeLlm({
  port: toNumber('--port', values.port),
  host: values.host,
  // A small default delay makes streaming visible in the UI; tests use 0.
  latency: { timeToFirstTokenMs: toNumber('--ttft', values.ttft), interTokenMs: toNumber('--interval', values.interval) },
  // A long-running demo server must not grow without bound.
  recordRequests: false,
  onTurn({ request, turn }) {
    const said = (lastUserMessageText(request) ?? '').replace(/\s+/g, ' ').slice(0, 60);
    const answer = turn.error
      ? `error ${turn.error.status}`
      : turn.toolCalls
        ? `tool calls: ${turn.toolCalls.map((call) => call.name).join(', ')}`
        : `${turn.text?.length ?? 0} chars of text`;
    console.log(`[fake-llm] ${request.stream ? 'stream' : 'json'} "${said}" -> ${answer}`);
  },
});

console.log(`Scripted demo model (not an LLM) listening on ${llm.url}. Any API key and model id work. Ctrl-C stops it.`);
console.log('It also answers POST /v1/audio/transcriptions (flag a model "Transcribes speech" for dictation) with a note on the audio received.');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    llm.close().finally(() => process.exit(0));
  });
}

function toNumber(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) {
    console.error(`${flag} must be a non-negative number, got ${JSON.stringify(value)}.`);
    process.exit(2);
  }
  return number;
}
