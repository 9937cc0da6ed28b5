/** src/config: the environment a deployment sets, read the same by every command. */
import { describe, expect, it } from 'vitest';
import { ConfigError, dataDocumentLimit, loadConfig, parseByteSize } from '../../src/config/index.js';

describe('FLOWMARK_DATA_DOCUMENT_LIMIT', () => {
  it('is a size in bytes, KiB or MiB; unset or empty leaves the default', () => {
    expect(dataDocumentLimit({})).toBeUndefined();
    expect(dataDocumentLimit({ FLOWMARK_DATA_DOCUMENT_LIMIT: '' })).toBeUndefined();
    expect(dataDocumentLimit({ FLOWMARK_DATA_DOCUMENT_LIMIT: '120' })).toBe(120);
    expect(dataDocumentLimit({ FLOWMARK_DATA_DOCUMENT_LIMIT: '512KiB' })).toBe(524288);
    expect(dataDocumentLimit({ FLOWMARK_DATA_DOCUMENT_LIMIT: ' 10 mib ' })).toBe(10485760);
    expect(parseByteSize('1024MiB', 'x')).toBe(1024 ** 3);
    expect(parseByteSize('7b', 'x')).toBe(7);
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['0', '-1', '1.5MiB', '5MB', '5 M', 'lots', '1025MiB', '99999999999'])
      expect(() => dataDocumentLimit({ FLOWMARK_DATA_DOCUMENT_LIMIT: bad })).toThrow(
        new ConfigError(
          `FLOWMARK_DATA_DOCUMENT_LIMIT: expected a size from 1 byte to 1 GiB, in bytes or with KiB or MiB (e.g. 10MiB), got ${JSON.stringify(bad)}`,
        ),
      );
  });

  it('is not read by loadConfig, so a bad value does not stop commands that only open the store', () => {
    expect(loadConfig({ FLOWMARK_DATA: '/tmp/x', FLOWMARK_DATA_DOCUMENT_LIMIT: 'lots' })).toEqual({
      dataDir: '/tmp/x',
      databaseUrl: undefined,
      sqliteSynchronous: 'normal',
      cells: undefined,
      pgPreparedStatements: undefined,
    });
  });
});

describe('FLOWMARK_PG_PREPARED_STATEMENTS', () => {
  it('is a whole number from 0 to 10000; unset or empty leaves the store its default', () => {
    expect(loadConfig({}).pgPreparedStatements).toBeUndefined();
    expect(loadConfig({ FLOWMARK_PG_PREPARED_STATEMENTS: ' ' }).pgPreparedStatements).toBeUndefined();
    expect(loadConfig({ FLOWMARK_PG_PREPARED_STATEMENTS: '0' }).pgPreparedStatements).toBe(0);
    expect(loadConfig({ FLOWMARK_PG_PREPARED_STATEMENTS: '10000' }).pgPreparedStatements).toBe(10000);
    for (const bad of ['-1', '1.5', 'off', '10001'])
      expect(() => loadConfig({ FLOWMARK_PG_PREPARED_STATEMENTS: bad })).toThrow(
        new ConfigError(
          `FLOWMARK_PG_PREPARED_STATEMENTS: expected a whole number from 0 to 10000, got ${JSON.stringify(bad)}`,
        ),
      );
  });
});
