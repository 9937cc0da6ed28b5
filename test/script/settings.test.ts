/** The sandbox's deployment settings from FLOWMARK_SCRIPT_* (docs/server.md "Limits"). */
import { describe, expect, it } from 'vitest';
import { scriptSettingsFromEnv } from '../../src/script/index.js';

describe('scriptSettingsFromEnv', () => {
  it('reads every setting, leaving unset and empty ones to their defaults', () => {
    expect(scriptSettingsFromEnv({})).toEqual({});
    expect(
      scriptSettingsFromEnv({
        FLOWMARK_SCRIPT_CPU_MS: '500',
        FLOWMARK_SCRIPT_WALL_MS: '10000',
        FLOWMARK_SCRIPT_MEMORY: '64MiB',
        FLOWMARK_SCRIPT_STACK: '512KiB',
        FLOWMARK_SCRIPT_WORKERS: '8',
        FLOWMARK_SCRIPT_ACCOUNT_WORKERS: '3',
        FLOWMARK_SCRIPT_ACCOUNT_QUEUE: '0',
        FLOWMARK_SCRIPT_UNKNOWN: 'x',
      }),
    ).toEqual({
      limits: { cpuTimeMs: 500, wallTimeMs: 10_000, memoryBytes: 64 * 1024 * 1024, stackBytes: 512 * 1024 },
      workers: 8,
      accountWorkers: 3,
      accountQueue: 0,
    });
    expect(scriptSettingsFromEnv({ FLOWMARK_SCRIPT_WORKERS: ' ' })).toEqual({});
  });

  it('names the bad setting and its range', () => {
    const refused = (env: NodeJS.ProcessEnv) => () => scriptSettingsFromEnv(env);
    expect(refused({ FLOWMARK_SCRIPT_STACK: '2MiB' })).toThrow(
      'FLOWMARK_SCRIPT_STACK: expected a size from 1 byte to 1 MiB, got "2MiB"',
    );
    expect(refused({ FLOWMARK_SCRIPT_CPU_MS: '600001' })).toThrow(
      'FLOWMARK_SCRIPT_CPU_MS: expected an integer from 1 to 600000, got "600001"',
    );
    expect(refused({ FLOWMARK_SCRIPT_WORKERS: '0' })).toThrow(
      'FLOWMARK_SCRIPT_WORKERS: expected an integer from 1 to 256, got "0"',
    );
    expect(refused({ FLOWMARK_SCRIPT_ACCOUNT_QUEUE: '-1' })).toThrow(
      'FLOWMARK_SCRIPT_ACCOUNT_QUEUE: expected an integer from 0 to 100000, got "-1"',
    );
  });
});
