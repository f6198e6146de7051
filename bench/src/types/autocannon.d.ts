// autocannon ships no types: the part of its API the bench uses.
declare module 'autocannon' {
  interface Histogram {
    readonly average: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly total: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
  }
  interface Result {
    readonly duration: number;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly '2xx': number;
    readonly requests: Histogram;
    readonly latency: Histogram;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
