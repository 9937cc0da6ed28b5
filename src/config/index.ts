import { resolve } from 'node:path';

/**
 * Process-wide settings read from the environment. Every command (render, serve, …) uses the same
 * data directory and database, so `flowmark render` sees what `flowmark serve` stored.
 */
export interface Config {
  /** Directory of the embedded SQLite database and other local state: FLOWMARK_DATA or ./data. */
  dataDir: string;
  /** PostgreSQL connection string (DATABASE_URL); when absent the embedded SQLite store is used. */
  databaseUrl: string | undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    dataDir: resolve(env.FLOWMARK_DATA || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
  };
}
