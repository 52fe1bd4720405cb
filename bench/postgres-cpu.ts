/**
 * The CPU a PostgreSQL server spends, for the benchmarks that put a journal
 * on it: on 2 cores the server's work competes with the relay's, so a figure
 * per create or per order counts both sides. Read from Linux's `/proc`: the
 * postmaster, the backends alive now, and the backends it has reaped
 * (`cutime`/`cstime`). Elsewhere there is no reading, and the figure is left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** Clock ticks per second of `/proc`'s CPU times (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** What `/proc/PID/stat` says of a process's parent and CPU time. */
interface ProcessTimes {
  parent: number;
  ownTicks: number;
  reapedChildrenTicks: number;
}

function processTimes(pid: number): ProcessTimes | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // Gone since the folder was listed.
  }
  // The command name is in parentheses and may hold spaces: the fields after
  // the last one are the state (field 3), the parent (4), …, utime to cstime (14–17).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const parent = Number(fields[1]);
  const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15).map(Number);
  return { parent, ownTicks: utime + stime, reapedChildrenTicks: cutime + cstime };
}

/** The postmaster's children now: its own list when the kernel keeps one, else every process's parent. */
function childrenOf(postmaster: number): number[] {
  try {
    const listed = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8');
    return listed.split(' ').filter(Boolean).map(Number);
  } catch {
    return readdirSync('/proc')
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && processTimes(pid)?.parent === postmaster);
  }
}

/** CPU time (user + system, µs) the server whose postmaster is `postmaster` has used so far. */
function serverCpuMicroseconds(postmaster: number): number {
  const own = processTimes(postmaster);
  let ticks = own ? own.ownTicks + own.reapedChildrenTicks : 0;
  for (const child of childrenOf(postmaster)) ticks += processTimes(child)?.ownTicks ?? 0;
  return (ticks / TICKS_PER_SECOND) * 1e6;
}

/**
 * A reader of the CPU the PostgreSQL server at `url` has used so far (µs), or
 * `undefined` where `/proc` cannot tell (not Linux). The postmaster is found
 * as the parent of a backend of this connection.
 */
export async function postgresCpuReader(url: string): Promise<(() => number) | undefined> {
  if (process.platform !== 'linux') return undefined;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0]?.pid;
    const postmaster = backend === undefined ? undefined : processTimes(backend)?.parent;
    if (postmaster === undefined) return undefined;
    return () => serverCpuMicroseconds(postmaster);
  } finally {
    await client.end();
  }
}
