/**
 * What a benchmark's server child reports of itself: its CPU time, the
 * requests it served and, of them, lookups, at one path the load never hits.
 * CPU per request compares servers on a shared machine better than
 * requests per second do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeListener } from '../src/server/node.js';

/** Where a child reports its CPU time and requests served. */
export const CPU_PATH = '/__bench/cpu';

/** A child's CPU time (µs, user and system) and what it served so far. */
export interface CpuReport {
  cpuMicroseconds: number;
  requests: number;
  lookups: number;
}

/** Wraps a listener to count requests (and, of them, lookups) and answer {@link CPU_PATH}. */
export function withCpuReport(listener: NodeListener): NodeListener {
  let requests = 0;
  let lookups = 0;
  return (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (incoming.url === CPU_PATH) {
      const { user, system } = process.cpuUsage();
      const report: CpuReport = { cpuMicroseconds: user + system, requests, lookups };
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report));
      return;
    }
    requests++;
    if (incoming.url?.endsWith('/lookup')) lookups++;
    listener(incoming, outgoing);
  };
}

/** The report of the child serving at `url`. */
export async function cpuOf(url: string): Promise<CpuReport> {
  return (await (await fetch(`${url}${CPU_PATH}`)).json()) as CpuReport;
}
