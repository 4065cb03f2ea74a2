/**
 * V8 flags every long-running agentq server process (the API, a worker, `npm start`'s all-in-one)
 * starts with, wherever it is launched: package.json's start scripts, the Dockerfile's CMDs (both
 * checked by infra/docker/compose.test.ts), the test and benchmark stacks. They go on the command
 * line: V8 reads them when it sets up the heap, so `v8.setFlagsFromString` is too late, and
 * NODE_OPTIONS refuses them.
 *
 * --no-memory-reducer: after ~8 s with little allocation V8 runs extra full collections that shrink
 * the heap, and the next burst of runs pays to grow it back: 40 runs after 12 s of idle cost the
 * API and workers ~29 % more CPU (12–50 % by stack; docs/benchmarks.md, twenty-fourth round).
 * The price is memory: an idle worker keeps the heap its last burst grew (~350 MiB there, ~200
 * MiB with the reducer), as a server sized for its bursts can afford.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];
