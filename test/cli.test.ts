import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { main } from '../src/cli/main.js';

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  return { io: { stdin: new PassThrough(), stdout, stderr }, out: () => out, err: () => err };
}

describe('flowmark CLI', () => {
  it('lists its commands when called without one, exiting 2', async () => {
    const c = capture();
    expect(await main([], c.io)).toBe(2);
    expect(c.out()).toContain('usage: flowmark <command>');
    expect(c.out()).toContain('version');
  });

  it('refuses an unknown command', async () => {
    const c = capture();
    expect(await main(['frobnicate'], c.io)).toBe(2);
    expect(c.err()).toContain("flowmark: unknown command 'frobnicate'");
  });
});
