import { followRun, type FollowerReport } from './follower';
import type { PrivatePostgres } from './private-postgres';
import { answerMarker, planMarker, startWorld, type World, type WorldOptions } from './world';

/** RFC 9110: what repeating a request does. POST/PATCH are not idempotent; the rest are. */
export type EffectClass = 'non-idempotent' | 'idempotent';
const effectOf = (method: string): EffectClass => (method === 'POST' || method === 'PATCH' ? 'non-idempotent' : 'idempotent');

type Repeats = { keyed: number; unkeyed: number };

/** What a scenario measured; `violations` lists every number that should have been zero (or within its bound). */
export type ScenarioResult = {
  scenario: string;
  description: string;
  runs: number;
  terminal: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** Runs not terminal when the scenario's deadline passed. */
  lost: number;
  /**
   * Extra hits of a tool call's side effect, by effect class: `keyed` when every attempt carried the
   * same Idempotency-Key (a server honouring it applies the effect once), `unkeyed` otherwise.
   */
  repeatedEffects: Record<EffectClass, Repeats>;
  /** Stored answers that hold the model's answer more than once. */
  doubledAnswers: number;
  /**
   * Succeeded runs whose stored message does not hold the text the model streamed before its tool
   * call exactly once (0 = lost, 2+ = doubled), stored and as followers saw it.
   */
  preToolText: { stored: number; live: number };
  /** Followers whose answer, as the chat UI shows it (retried steps' abandoned attempts dropped), holds it more than once. */
  doubledLiveAnswers: number;
  sse: { followers: number; gaps: number; duplicates: number; unfinished: number; unavailable503: number };
  crashes: { unexpectedExits: string[]; unhandled: string[] };
  extra: Record<string, unknown>;
  violations: string[];
  durationMs: number;
  skipped?: string;
};

export type ScenarioOptions = { runs: number; pg: PrivatePostgres; log: (line: string) => void };

type RunRecord = { runId: string; sessionId: string; method: string; path: string; follower?: Promise<FollowerReport> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startRun(world: World, tool: string, method: string, path: string, options: { follow?: number; followFor?: number } = {}): Promise<RunRecord> {
  for (let attempt = 0; ; attempt++) {
    const session = await world.user.post('/api/sessions', {});
    const run = session.status === 201 || session.status === 200 ? await world.user.post(`/api/sessions/${session.body.id}/runs`, { content: `call ${tool} ${method} ${path}` }) : session;
    if (run.status === 202) {
      const record: RunRecord = { runId: run.body.runId, sessionId: session.body.id, method, path };
      if (options.follow) {
        const deadline = Date.now() + (options.followFor ?? 240_000);
        const followers = Array.from({ length: options.follow }, () => followRun(() => world.apiUrl, world.user.cookieHeader, record.runId, deadline));
        record.follower = followers[0];
        extraFollowers.set(record, followers.slice(1));
      }
      return record;
    }
    if (attempt > 20) throw new Error(`could not start a run: ${run.status} ${JSON.stringify(run.body)}`);
    await sleep(500);
  }
}
const extraFollowers = new WeakMap<RunRecord, Promise<FollowerReport>[]>();

async function runStatus(world: World, runId: string): Promise<string | undefined> {
  try {
    const response = await world.user.get(`/api/runs/${runId}`);
    return response.status === 200 ? (response.body.status as string) : undefined;
  } catch {
    return undefined;
  }
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

async function waitTerminal(world: World, records: RunRecord[], deadline: number): Promise<Map<string, string>> {
  const statuses = new Map<string, string>();
  while (Date.now() < deadline) {
    for (const record of records) {
      if (TERMINAL.has(statuses.get(record.runId) ?? '')) continue;
      const status = await runStatus(world, record.runId);
      if (status) statuses.set(record.runId, status);
    }
    if (records.every((record) => TERMINAL.has(statuses.get(record.runId) ?? ''))) break;
    await sleep(500);
  }
  return statuses;
}

/** Counts what the user and the outside world saw for these runs. */
async function measure(world: World, name: string, description: string, records: RunRecord[], deadline: number, started: number, extra: Record<string, unknown> = {}): Promise<ScenarioResult> {
  const statuses = await waitTerminal(world, records, deadline);
  const repeatedEffects: Record<EffectClass, Repeats> = { 'non-idempotent': { keyed: 0, unkeyed: 0 }, idempotent: { keyed: 0, unkeyed: 0 } };
  let doubledAnswers = 0;
  const preToolText = { stored: 0, live: 0 };
  for (const record of records) {
    const hits = world.effects.hitsFor(record.path);
    if (hits.length > 1) {
      const key = hits[0]!.idempotencyKey;
      const keyed = key !== null && hits.every((hit) => hit.idempotencyKey === key);
      repeatedEffects[effectOf(record.method)][keyed ? 'keyed' : 'unkeyed'] += hits.length - 1;
      if (!keyed && effectOf(record.method) === 'non-idempotent') {
        // Which calls repeated (the key is <runId>:<toolCallId>) and when: what to look at first.
        const repeats = (extra.unkeyedRepeats as string[] | undefined) ?? [];
        repeats.push(`${record.path}: ${hits.map((hit) => `${hit.idempotencyKey ?? 'no key'}@+${hit.at - started}ms`).join(', ')}`);
        extra.unkeyedRepeats = repeats;
      }
    }
    if (statuses.get(record.runId) === 'failed') {
      const run = await world.user.get(`/api/runs/${record.runId}`).catch(() => undefined);
      const errors = (extra.failures as string[] | undefined) ?? [];
      errors.push(`${record.path}: ${String(run?.body?.error ?? 'unknown').slice(0, 200)}`);
      extra.failures = errors;
    }
    const session = await world.user.get(`/api/sessions/${record.sessionId}`).catch(() => undefined);
    const message = (session?.body?.messages as { role: string; runId?: string; parts: { type: string; text?: string }[] }[] | undefined)?.find(
      (entry) => entry.role === 'assistant' && entry.runId === record.runId,
    );
    const text = (message?.parts ?? []).filter((part) => part.type === 'text').map((part) => part.text ?? '').join('');
    if (text.split(answerMarker(record.path)).length - 1 > 1) doubledAnswers += 1;
    if (statuses.get(record.runId) === 'succeeded' && text.split(planMarker(record.path)).length - 1 !== 1) preToolText.stored += 1;
  }
  const followerPromises = records.flatMap((record) => (record.follower ? [record.follower, ...(extraFollowers.get(record) ?? [])] : []));
  const followers = await Promise.all(followerPromises);
  let doubledLiveAnswers = 0;
  for (const follower of followers) {
    const record = records.find((candidate) => candidate.runId === follower.runId)!;
    if (follower.text.split(answerMarker(record.path)).length - 1 > 1) doubledLiveAnswers += 1;
    if (follower.finished && statuses.get(record.runId) === 'succeeded' && follower.text.split(planMarker(record.path)).length - 1 !== 1) preToolText.live += 1;
  }
  const stepRetries = followers.reduce((sum, follower) => sum + follower.stepRetries, 0);
  if (stepRetries > 0) extra.stepRetriesSeen = stepRetries;
  // postgres.js's null-socket fault, caught by the process guard and repaired (shared/src/db/postgres).
  const driverFaults = world.stack.countLines('postgres driver fault');
  if (driverFaults > 0) extra.driverFaultsRecovered = driverFaults;
  const values = records.map((record) => statuses.get(record.runId) ?? 'unknown');
  const result: ScenarioResult = {
    scenario: name,
    description,
    runs: records.length,
    terminal: values.filter((status) => TERMINAL.has(status)).length,
    succeeded: values.filter((status) => status === 'succeeded').length,
    failed: values.filter((status) => status === 'failed').length,
    cancelled: values.filter((status) => status === 'cancelled').length,
    lost: values.filter((status) => !TERMINAL.has(status)).length,
    repeatedEffects,
    doubledAnswers,
    doubledLiveAnswers,
    preToolText,
    sse: {
      followers: followers.length,
      gaps: followers.reduce((sum, follower) => sum + follower.gaps, 0),
      duplicates: followers.reduce((sum, follower) => sum + follower.duplicates, 0),
      unfinished: followers.filter((follower) => !follower.finished).length,
      unavailable503: followers.reduce((sum, follower) => sum + follower.unavailable, 0),
    },
    crashes: world.stack.crashes(),
    extra,
    violations: [],
    durationMs: Date.now() - started,
  };
  result.violations = violations(result);
  return result;
}

/** The guarantees as checks: every one of these should be zero. */
function violations(result: ScenarioResult): string[] {
  const found: string[] = [];
  if (result.lost > 0) found.push(`${result.lost} run(s) not terminal`);
  if (result.repeatedEffects['non-idempotent'].unkeyed > 0) found.push(`${result.repeatedEffects['non-idempotent'].unkeyed} repeated non-idempotent effect(s) without one Idempotency-Key`);
  if (result.doubledAnswers > 0) found.push(`${result.doubledAnswers} doubled answer(s)`);
  if (result.preToolText.stored + result.preToolText.live > 0) found.push(`text before a tool call lost or doubled in ${result.preToolText.stored} stored message(s), ${result.preToolText.live} follower(s)`);
  if (result.doubledLiveAnswers > 0) found.push(`${result.doubledLiveAnswers} follower(s) shown a doubled answer`);
  if (result.sse.gaps > 0) found.push(`${result.sse.gaps} SSE gap(s)`);
  if (result.sse.duplicates > 0) found.push(`${result.sse.duplicates} SSE duplicate(s)`);
  if (result.sse.unfinished > 0) found.push(`${result.sse.unfinished} unfinished follower(s)`);
  if (result.crashes.unexpectedExits.length > 0) found.push(`${result.crashes.unexpectedExits.length} process crash(es)`);
  if (result.crashes.unhandled.length > 0) found.push(`${result.crashes.unhandled.length} unhandled rejection/exception log line(s)`);
  return found;
}

async function withWorld(options: WorldOptions & { log: (line: string) => void }, body: (world: World) => Promise<ScenarioResult>): Promise<ScenarioResult> {
  const starting = Date.now();
  const world = await startWorld(options);
  options.log(`  world up in ${((Date.now() - starting) / 1000).toFixed(1)} s (redis ${options.appendonly ? 'AOF' : 'no persistence'}, API + ${options.workers ?? 2} workers)`);
  try {
    return await body(world);
  } finally {
    await world.close().catch(() => {});
  }
}

/** Worker SIGKILL every 3–5 s (and a new worker at once) while N side-effecting runs go through. */
async function workerKillLoop(options: ScenarioOptions): Promise<ScenarioResult> {
  // Four jobs per worker, tools that take 2.5 s: runs overlap several kills.
  return withWorld({ log: options.log, pg: options.pg, appendonly: true, workerEnv: { WORKER_CONCURRENCY: '4' } }, async (world) => {
    const started = Date.now();
    const records: RunRecord[] = [];
    for (let index = 0; index < options.runs; index++) {
      const method = index % 2 === 0 ? 'POST' : 'PUT';
      records.push(await startRun(world, 'act', method, `/slow-2500/kill-${index}-${method}`, { follow: 1 }));
    }
    let kills = 0;
    const deadline = Date.now() + 120_000 + options.runs * 3_000;
    const killing = (async () => {
      let first = true;
      while (Date.now() < deadline) {
        await sleep(first ? 1500 : 3000 + Math.random() * 2000);
        first = false;
        const statuses = await Promise.all(records.map((record) => runStatus(world, record.runId)));
        if (statuses.every((status) => TERMINAL.has(status ?? ''))) return;
        const alive = world.stack.workers.filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null);
        // Keep one worker up: on a loaded machine a replacement takes longer to boot than the kill interval.
        if (alive.length < 2) continue;
        const victim = alive[Math.floor(Math.random() * alive.length)]!;
        await victim.stop('SIGKILL');
        world.stack.workers.splice(world.stack.workers.indexOf(victim), 1);
        kills += 1;
        options.log(`  SIGKILL ${victim.label}`);
        // Not awaited: a worker takes seconds to boot, and the kills go on meanwhile.
        replacements.push(world.stack.startWorker());
      }
    })();
    const replacements: Promise<unknown>[] = [];
    await killing;
    await Promise.allSettled(replacements);
    return measure(world, 'worker-kill', 'worker SIGKILL every 3–5 s (replaced at once) during side-effecting runs (POST and PUT)', records, deadline, started, { kills });
  });
}

/** Redis stopped with `signal` for 2 s mid-run, then started again, with (AOF) or without persistence. */
function redisRestart(signal: 'SIGTERM' | 'SIGKILL', appendonly: boolean) {
  return async (options: ScenarioOptions): Promise<ScenarioResult> =>
    withWorld({ log: options.log, pg: options.pg, appendonly }, async (world) => {
      const started = Date.now();
      const records: RunRecord[] = [];
      for (let index = 0; index < options.runs; index++) {
        const method = index % 2 === 0 ? 'POST' : 'PUT';
        records.push(await startRun(world, 'act', method, `/slow-1500/redis-${index}-${method}`, { follow: 1 }));
      }
      await sleep(1500);
      await world.redis.stop(signal);
      options.log(`  redis ${signal} (appendonly ${appendonly ? 'yes' : 'no'})`);
      await sleep(2000);
      await world.redis.start();
      const deadline = Date.now() + 60_000 + options.runs * 2_000;
      return measure(world, `redis-${signal === 'SIGTERM' ? 'sigterm' : 'sigkill'}-${appendonly ? 'aof' : 'noaof'}`, `Redis ${signal} mid-run, down 2 s, restarted ${appendonly ? 'with AOF (everysec)' : 'without persistence (every job and stream lost)'}`, records, deadline, started);
    });
}

/** PostgreSQL stopped (immediate: a crash) for 12 s mid-run, then started again. */
async function postgresRestart(options: ScenarioOptions): Promise<ScenarioResult> {
  return withWorld({ log: options.log, pg: options.pg, appendonly: true }, async (world) => {
    const started = Date.now();
    const records: RunRecord[] = [];
    for (let index = 0; index < options.runs; index++) {
      const method = index % 2 === 0 ? 'POST' : 'PUT';
      records.push(await startRun(world, 'act', method, `/slow-1000/pg-${index}-${method}`, { follow: 1 }));
    }
    await sleep(1500);
    world.pg.stop('immediate');
    options.log('  postgres stopped (-m immediate) for 12 s');
    await sleep(12_000);
    world.pg.start();
    const deadline = Date.now() + 90_000 + options.runs * 2_000;
    return measure(world, 'postgres-restart', 'PostgreSQL stopped with -m immediate for 12 s mid-run, then started', records, deadline, started);
  });
}

/** SIGTERM a worker while its runs are inside a 15 s tool call; a replacement worker starts at once. */
async function sigtermLongTool(options: ScenarioOptions): Promise<ScenarioResult> {
  return withWorld({ log: options.log, pg: options.pg, appendonly: true, workers: 1 }, async (world) => {
    const started = Date.now();
    const count = Math.max(2, Math.min(options.runs, 8));
    const records: RunRecord[] = [];
    for (let index = 0; index < count; index++) records.push(await startRun(world, 'act', 'POST', `/slow-15000/long-${index}`, { follow: 1 }));
    const waitUntil = Date.now() + 60_000;
    while (Date.now() < waitUntil && !records.every((record) => world.effects.hitsFor(record.path).length > 0)) await sleep(100);
    const victim = world.stack.workers[0]!;
    const replacement = world.stack.startWorker();
    const stopping = Date.now();
    await victim.stop('SIGTERM');
    const exitedAfterMs = Date.now() - stopping;
    world.stack.workers.splice(world.stack.workers.indexOf(victim), 1);
    await replacement;
    options.log(`  worker SIGTERM during a 15 s tool; it exited after ${exitedAfterMs} ms`);
    const deadline = Date.now() + 120_000;
    return measure(world, 'sigterm-long-tool', 'worker SIGTERM while its runs are inside a 15 s POST; a replacement worker runs', records, deadline, started, { exitedAfterMs });
  });
}

/** kill -9 the API while 100 SSE followers (10 per run) watch; they reconnect with Last-Event-ID to the restarted API. */
async function apiKill(options: ScenarioOptions): Promise<ScenarioResult> {
  return withWorld({ log: options.log, pg: options.pg, appendonly: true }, async (world) => {
    const started = Date.now();
    const runCount = Math.max(1, Math.min(10, Math.ceil(options.runs / 2)));
    const perRun = Math.ceil(100 / runCount);
    const records: RunRecord[] = [];
    for (let index = 0; index < runCount; index++) records.push(await startRun(world, 'act', 'PUT', `/slow-4000/api-${index}`, { follow: perRun }));
    await sleep(2000);
    await world.stack.restartApi('SIGKILL');
    options.log('  api kill -9, restarted on the same port');
    const deadline = Date.now() + 90_000;
    return measure(world, 'api-kill', `API kill -9 with ${runCount * perRun} SSE followers (${perRun} per run), restarted on the same port`, records, deadline, started);
  });
}

/** Approve and cancel parked runs while Redis is down; approved runs must resume ≤ 5 s after Redis returns. */
async function approveCancelOutage(options: ScenarioOptions): Promise<ScenarioResult> {
  return withWorld({ log: options.log, pg: options.pg, appendonly: true }, async (world) => {
    const started = Date.now();
    const count = Math.max(2, options.runs);
    const records: RunRecord[] = [];
    for (let index = 0; index < count; index++) records.push(await startRun(world, 'gate', 'POST', `/gate-${index}`, { follow: 1 }));
    const approvals = new Map<string, string>();
    const parkedBy = Date.now() + 60_000;
    while (Date.now() < parkedBy && approvals.size < count) {
      for (const record of records) {
        if (approvals.has(record.runId)) continue;
        const [approval] = (await world.user.get(`/api/approvals?runId=${record.runId}`)).body.items as { id: string; status: string }[];
        if (approval && (await runStatus(world, record.runId)) === 'awaiting_approval') approvals.set(record.runId, approval.id);
      }
      await sleep(200);
    }
    const toApprove = records.filter((_, index) => index % 2 === 0);
    const toCancel = records.filter((_, index) => index % 2 === 1);
    await world.redis.stop('SIGTERM');
    options.log('  redis down: approving and cancelling');
    const answers: Record<string, number[]> = { approve: [], approveRetry: [], cancel: [], cancelRetry: [] };
    for (const record of toApprove) {
      answers.approve!.push((await world.user.post(`/api/approvals/${approvals.get(record.runId)}`, { decision: 'approve' })).status);
      answers.approveRetry!.push((await world.user.post(`/api/approvals/${approvals.get(record.runId)}`, { decision: 'approve' })).status);
    }
    for (const record of toCancel) {
      answers.cancel!.push((await world.user.post(`/api/runs/${record.runId}/cancel`)).status);
      answers.cancelRetry!.push((await world.user.post(`/api/runs/${record.runId}/cancel`)).status);
    }
    await sleep(1000);
    await world.redis.start();
    const back = Date.now();
    const resumedAfter = new Map<string, number>();
    const waitResume = Date.now() + 30_000;
    while (Date.now() < waitResume && resumedAfter.size < toApprove.length) {
      for (const record of toApprove) {
        if (resumedAfter.has(record.runId)) continue;
        const status = await runStatus(world, record.runId);
        if (status && status !== 'awaiting_approval') resumedAfter.set(record.runId, Date.now() - back);
      }
      await sleep(100);
    }
    const deadline = Date.now() + 60_000;
    const result = await measure(world, 'approve-cancel-outage', 'approve half and cancel half of the parked runs while Redis is down (SIGTERM, AOF), then start Redis', records, deadline, started, {
      answers,
      maxResumeMs: Math.max(0, ...resumedAfter.values()),
      notResumed: toApprove.length - resumedAfter.size,
    });
    const bad = (codes: number[], ok: number) => codes.filter((code) => code !== ok).length;
    if (bad(answers.approve!, 200) + bad(answers.approveRetry!, 200) > 0) result.violations.push(`decisions during the outage answered ${[...answers.approve!, ...answers.approveRetry!].join(',')} (want 200)`);
    if (bad(answers.cancel!, 202) + bad(answers.cancelRetry!, 202) > 0) result.violations.push(`cancels during the outage answered ${[...answers.cancel!, ...answers.cancelRetry!].join(',')} (want 202)`);
    if ((result.extra.notResumed as number) > 0 || (result.extra.maxResumeMs as number) > 5000) result.violations.push(`approved runs resumed after ${result.extra.maxResumeMs} ms (${result.extra.notResumed} not at all; want ≤ 5000 ms)`);
    for (const record of toApprove) if (world.effects.hitsFor(record.path).length !== 1) result.violations.push(`approved ${record.runId} hit its tool ${world.effects.hitsFor(record.path).length} times`);
    for (const record of toCancel) {
      if (world.effects.hitsFor(record.path).length !== 0) result.violations.push(`cancelled ${record.runId} hit its tool`);
      if ((await runStatus(world, record.runId)) !== 'cancelled') result.violations.push(`cancelled ${record.runId} ended ${await runStatus(world, record.runId)}`);
    }
    return result;
  });
}

/** Approvals expire with no worker running: the inbox must say "expired" on time. */
async function expiryNoWorker(options: ScenarioOptions): Promise<ScenarioResult> {
  return withWorld({ log: options.log, pg: options.pg, appendonly: true, gateTimeoutMs: 3000 }, async (world) => {
    const started = Date.now();
    const count = Math.max(1, Math.min(options.runs, 6));
    const records: RunRecord[] = [];
    for (let index = 0; index < count; index++) records.push(await startRun(world, 'gate', 'POST', `/expire-${index}`));
    const approvals = new Map<string, { id: string; expiresAt: string }>();
    const parkedBy = Date.now() + 60_000;
    while (Date.now() < parkedBy && approvals.size < count) {
      for (const record of records) {
        const [approval] = (await world.user.get(`/api/approvals?runId=${record.runId}`)).body.items as { id: string; expiresAt: string }[];
        if (approval && (await runStatus(world, record.runId)) === 'awaiting_approval') approvals.set(record.runId, approval);
      }
      await sleep(200);
    }
    for (const worker of [...world.stack.workers]) await worker.stop('SIGTERM');
    world.stack.workers.length = 0;
    options.log('  every worker stopped; waiting past the approvals’ expiry');
    const latest = Math.max(...[...approvals.values()].map((approval) => new Date(approval.expiresAt).getTime()));
    await sleep(Math.max(0, latest - Date.now()) + 1000);
    const inbox = (await world.user.get('/api/approvals?status=pending')).body.items as { runId: string }[];
    const pendingLeft = inbox.filter((item) => records.some((record) => record.runId === item.runId)).length;
    const states = await Promise.all([...approvals.values()].map(async (approval) => (await world.user.get(`/api/approvals/${approval.id}`)).body.status as string));
    const badge = (await world.user.get('/api/approvals/count')).body.pending as number;
    await world.stack.startWorker();
    const deadline = Date.now() + 60_000;
    const result = await measure(world, 'expiry-no-worker', 'approvals time out (3 s) while no worker runs; the inbox must show them expired', records, deadline, started, { pendingLeft, states, badge });
    if (pendingLeft > 0 || badge > 0 || states.some((state) => state !== 'expired')) result.violations.push(`with no worker: ${pendingLeft} still pending in the inbox, badge ${badge}, states ${states.join(',')}`);
    for (const record of records) if (world.effects.hitsFor(record.path).length > 0) result.violations.push(`expired ${record.runId} hit its tool`);
    return result;
  });
}

/** Every scenario by name, in the order the suite runs them. */
export const scenarios: Record<string, { needsPostgresControl?: boolean; run: (options: ScenarioOptions) => Promise<ScenarioResult> }> = {
  'worker-kill': { run: workerKillLoop },
  'redis-sigterm-aof': { run: redisRestart('SIGTERM', true) },
  'redis-sigkill-aof': { run: redisRestart('SIGKILL', true) },
  'redis-sigterm-noaof': { run: redisRestart('SIGTERM', false) },
  'redis-sigkill-noaof': { run: redisRestart('SIGKILL', false) },
  'postgres-restart': { run: postgresRestart, needsPostgresControl: true },
  'sigterm-long-tool': { run: sigtermLongTool },
  'api-kill': { run: apiKill },
  'approve-cancel-outage': { run: approveCancelOutage },
  'expiry-no-worker': { run: expiryNoWorker },
};
