import { ConfigError } from '../config.js';

/** Node's listen errors an operator fixes by changing the variable (or stopping what holds the port). */
const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'is already in use (another process listens there): stop it or choose another port',
  EACCES: 'may not be bound by this user (ports below 1024 need privileges): choose a port from 1024',
  EADDRNOTAVAIL: 'cannot be bound: the host is no address of this machine',
};

/**
 * `start()`, with a listen error that the configuration causes turned into a one-line `ConfigError`
 * naming `variable` (the README promises one for every configuration error).
 */
export async function listening<T>(variable: 'PORT' | 'GATEHOUSE_METRICS_PORT', host: string | undefined, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === undefined ? undefined : LISTEN_PROBLEMS[code];
    if (problem === undefined) throw error;
    const hostVariable = variable === 'PORT' ? 'HOST' : 'GATEHOUSE_METRICS_HOST';
    const named = code === 'EADDRNOTAVAIL' ? hostVariable : variable;
    throw new ConfigError(named, `${named}: ${host ?? '*'}:${port} ${problem} (${code}).`);
  }
}
