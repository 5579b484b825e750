// PostgreSQL's own CPU time while a scenario runs (issue 32): the backends of the benchmark
// server's pool, found in pg_stat_activity by the application_name the benchmark gives the
// server's connection string, and the server's shared processes (the postmaster, WAL writer,
// checkpointer, background writer, autovacuum), each read from /proc/<pid>/stat (user + system)
// before and after a slice. The shared processes also work for any other client of the same
// server, so they are kept apart from the backends.
import { readFileSync } from 'node:fs';
import { ticksPerSecond } from './children.js';

/** User + system ms of `pid` from /proc, or the error code (ENOENT: another PID namespace or gone; EACCES). */
function procCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond(), ppid: Number(fields[1]) };
  } catch (error) {
    return { error: error.code ?? String(error) };
  }
}

/**
 * A probe of PostgreSQL's CPU for the server whose connections carry `applicationName`. `sample()`
 * reads every process once; `delta(before, after)` gives the ms spent in between, or why not.
 */
export async function openPostgresCpuProbe(url, applicationName) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, application_name: 'gatehouse-bench-probe' });
  await client.connect();
  return {
    async sample() {
      const { rows } = await client.query(
        "select pid, backend_type, application_name from pg_stat_activity where pid <> pg_backend_pid() and (application_name = $1 or backend_type <> 'client backend')",
        [applicationName],
      );
      const backends = {};
      const background = {};
      let firstError;
      let postmaster;
      for (const row of rows) {
        const read = procCpuMs(row.pid);
        if (read.error) {
          firstError ??= { pid: row.pid, error: read.error };
          continue;
        }
        (row.backend_type === 'client backend' ? backends : background)[row.pid] = read.ms;
        postmaster ??= read.ppid;
      }
      if (postmaster) {
        const read = procCpuMs(postmaster);
        if (!read.error) background[postmaster] = read.ms;
      }
      const readable = Object.keys(backends).length + Object.keys(background).length > 0;
      return { backends, background, unreadable: readable ? undefined : (firstError ?? { error: 'no PostgreSQL process found' }) };
    },
    /** Ms between two samples; a process new in `after` counts from 0, one gone by then is lost (counted in `ended`). */
    delta(before, after) {
      if (before.unreadable || after.unreadable) {
        const { pid, error } = before.unreadable ?? after.unreadable;
        const where = error === 'ENOENT' ? ': PostgreSQL runs in another PID namespace (a container) or on another host' : '';
        return { unreadable: pid ? `/proc/${pid}/stat (PostgreSQL process ${pid}) not readable (${error}${where})` : error };
      }
      const sum = (b, a) => Object.entries(a).reduce((total, [pid, ms]) => total + ms - (b[pid] ?? 0), 0);
      const ended = Object.keys(before.backends).filter((pid) => !(pid in after.backends)).length;
      return { backendsMs: sum(before.backends, after.backends), backgroundMs: sum(before.background, after.background), backends: Object.keys(after.backends).length, ended };
    },
    async close() {
      await client.end();
    },
  };
}
