// autocannon 9 ships no types; only what bench.ts uses.
declare module 'autocannon' {
  type Histogram = { average: number; mean: number; p50: number; p99: number; total: number };
  type Result = { requests: Histogram & { sent: number }; latency: Histogram; errors: number; non2xx: number; '2xx': number; duration: number };
  type Options = {
    url: string;
    connections?: number;
    amount?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string; setupRequest?: (request: { path: string; [key: string]: unknown }) => { path: string; [key: string]: unknown }; onResponse?: (status: number, body: string) => void }[];
  };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
