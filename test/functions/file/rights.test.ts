import { beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext } from '../../../src/functions/context.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, call, errorOf, type World } from '../../platform/world.js';
import { as, createBinary, createText, sampleWorkbook } from './support.js';

const RIGHTS_FUNCTIONS = [
  'R_read_file_add_lane',
  'R_read_file_add_user',
  'R_read_file_remove_lane',
  'R_read_file_remove_user',
  'R_update_file_add_lane',
  'R_update_file_add_user',
  'R_update_file_remove_lane',
  'R_update_file_remove_user',
];

describeEachEngine('file rights functions', (engine) => {
  let w: World;
  let ann: ExecutionContext;
  const rights = (user: [number[], number[]], lane: [number[], number[]]) => ({
    user: { READ: user[0], WRITE: user[1] },
    lane: { READ: lane[0], WRITE: lane[1] },
  });
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await as(w, 'ann', { laneId: undefined });
  });

  it('add and remove users by login, id, email or list, defaulting to the connected user', async () => {
    const id = await createText(ann, 'f.txt', 'x');
    expect(await call(ann, 'R_read_file_add_user', id, 'carl')).toEqual({
      [id]: rights([[w.ids.carl], []], [[], []]),
    });
    expect(await call(ann, 'R_read_file_add_user', id, [w.ids.dora, 'carl@acme.example'])).toEqual({
      [id]: rights([[w.ids.carl, w.ids.dora].sort((a, b) => a - b), []], [[], []]),
    });
    expect(await call(ann, 'R_update_file_add_user', id, `[${w.ids.carl}]`)).toEqual({
      [id]: rights([[w.ids.carl, w.ids.dora].sort((a, b) => a - b), [w.ids.carl]], [[], []]),
    });
    expect(await call(ann, 'R_update_file_add_user', id)).toEqual({
      [id]: rights(
        [[w.ids.carl, w.ids.dora].sort((a, b) => a - b), [w.ids.ann, w.ids.carl].sort((a, b) => a - b)],
        [[], []],
      ),
    });
    expect(await call(ann, 'R_read_file_remove_user', id, 'dora')).toMatchObject({
      [id]: { user: { READ: [w.ids.carl] } },
    });
    expect(await call(ann, 'R_update_file_remove_user', id, ['carl', 'ann'])).toEqual({
      [id]: rights([[w.ids.carl], []], [[], []]),
    });
    expect(await call(ann, 'R_read_file_remove_user', id, 'carl')).toEqual({
      [id]: rights([[], []], [[], []]),
    });
  });

  it('add and remove lanes by id or list, defaulting to the lane of the current step', async () => {
    const id = await createText(ann, 'g.txt', 'x');
    const inLane = await as(w, 'ann', { laneId: w.ids.managers });
    expect(await call(inLane, 'R_read_file_add_lane', id)).toEqual({
      [id]: rights([[], []], [[w.ids.managers], []]),
    });
    expect(await call(ann, 'R_update_file_add_lane', id, String(w.ids.clerks))).toEqual({
      [id]: rights([[], []], [[w.ids.managers], [w.ids.clerks]]),
    });
    expect(await call(ann, 'R_update_file_add_lane', id, `[${w.ids.managers}]`)).toMatchObject({
      [id]: { lane: { WRITE: [w.ids.clerks, w.ids.managers].sort((a, b) => a - b) } },
    });
    expect(await call(inLane, 'R_update_file_remove_lane', id)).toEqual({
      [id]: rights([[], []], [[w.ids.managers], [w.ids.clerks]]),
    });
    expect(await call(ann, 'R_read_file_remove_lane', id, [w.ids.managers])).toEqual({
      [id]: rights([[], []], [[], [w.ids.clerks]]),
    });
  });

  it('changes several files at once, all or none', async () => {
    const a = await createText(ann, 'a', 'x');
    const b = await createText(ann, 'b', 'x');
    expect(await call(ann, 'R_read_file_add_user', [a, b], 'carl')).toEqual({
      [a]: rights([[w.ids.carl], []], [[], []]),
      [b]: rights([[w.ids.carl], []], [[], []]),
    });
    const carl = await as(w, 'carl');
    const own = await createText(carl, 'c', 'x');
    expect(await errorOf(carl, 'R_read_file_add_user', JSON.stringify([own, a]), 'dora')).toBe(
      `R_read_file_add_user: Access denied: no WRITE right on file ${a}.`,
    );
    expect(await call(carl, 'R_read_file_add_user', own, 'carl')).toEqual({
      [own]: rights([[w.ids.carl], []], [[], []]),
    });
  });

  it('names what is missing or wrong', async () => {
    const id = await createText(ann, 'e', 'x');
    const nobody = await as(w, null);
    expect(await errorOf(nobody, 'R_read_file_add_user', id)).toBe(
      'R_read_file_add_user: argument 2 (user) is missing and no user is connected',
    );
    expect(await errorOf(ann, 'R_update_file_add_lane', id)).toBe(
      'R_update_file_add_lane: argument 2 (lane) is missing and the current step runs in no lane',
    );
    expect(await errorOf(ann, 'R_read_file_add_user', id, 'nobody')).toBe('Unable to retrieve user.');
    expect(await errorOf(ann, 'R_read_file_add_lane', id, 987654)).toBe(
      'R_read_file_add_lane: Lane not found.',
    );
    expect(await errorOf(ann, 'R_read_file_add_lane', id, 'Clerks')).toBe(
      'R_read_file_add_lane: invalid lane id "Clerks": a lane is named by its id',
    );
    expect(await errorOf(ann, 'R_read_file_add_user', id, '[')).toBe(
      'R_read_file_add_user: argument 2 (user) is not a JSON array: "["',
    );
    expect(await errorOf(ann, 'R_read_file_add_user', id, [{}])).toBe(
      'R_read_file_add_user: argument 2 (user) holds {}, which is not a user id or login',
    );
    expect(await errorOf(ann, 'R_read_file_add_user', id, [])).toBe(
      'R_read_file_add_user: argument 2 (user) names no user',
    );
    expect(await errorOf(ann, 'R_read_file_add_user', 'missing', 'carl')).toBe(
      "Uploaded file missing doesn't exist.",
    );
    const other = await buildWorld(engine.store);
    const stranger = await as(other, 'ann');
    expect(await errorOf(stranger, 'R_read_file_add_user', id, 'carl')).toBe(
      `Uploaded file ${id} doesn't exist.`,
    );
  });

  /**
   * The rights matrix: for every function taking a file, a user grant (to carl) and a lane grant
   * (to the managers lane, of which dora is a LIVE member), each at no right, READ and WRITE.
   */
  describe('rights matrix', () => {
    type Needs = 'READ' | 'WRITE';
    interface Case {
      fn: string;
      needs: Needs;
      /** A file owned by ann for this case (default a text file). */
      file?: () => Promise<string>;
      run(ctx: ExecutionContext, id: string): Promise<unknown>;
    }
    let xlsx: Buffer;
    beforeAll(async () => {
      xlsx = await sampleWorkbook();
    });
    /** A case calling fn(id, ...args()); args are made at call time (the world exists then). */
    const simple = (fn: string, needs: Needs, args: () => unknown[] = () => []): Case => ({
      fn,
      needs,
      run: (ctx, id) => call(ctx, fn, id, ...args()),
    });
    const cases: Case[] = [
      simple('R_file_content', 'READ', () => ['NONE']),
      simple('R_file_desc', 'READ'),
      simple('R_file_size', 'READ'),
      simple('R_file_index_of', 'READ', () => ['x']),
      simple('R_file_last_index_of', 'READ', () => ['x']),
      simple('R_file_substring', 'READ', () => ['x']),
      {
        fn: 'R_read_excel_cells',
        needs: 'READ',
        file: () => createBinary(ann, 'book.xlsx', xlsx),
        run: (ctx, id) =>
          call(ctx, 'R_read_excel_cells', id, [{ worksheet: 'Orders', cells: [{ col: 'A', row: 1 }] }]),
      },
      { fn: 'zip_file', needs: 'READ', run: (ctx, id) => call(ctx, 'zip_file', [id], 'z.zip') },
      {
        fn: 'unzip_file',
        needs: 'READ',
        file: async () =>
          (await call(ann, 'zip_file', await createText(ann, 'in.txt', 'x'), 'z.zip')) as string,
        run: (ctx, id) => call(ctx, 'unzip_file', id),
      },
      {
        fn: 'attach_file',
        needs: 'READ',
        async run(ctx, id) {
          const instance = await w.platform.applications.create(
            w.account,
            { userId: null, login: null },
            { mode: 'LIVE' },
          );
          Object.assign(ctx, { surface: 'manual-task-input', applicationInstanceId: instance.id });
          try {
            return await call(ctx, 'attach_file', id);
          } finally {
            Object.assign(ctx, { surface: 'eval', applicationInstanceId: undefined });
          }
        },
      },
      {
        fn: 'detach_file',
        needs: 'READ',
        async run(ctx, id) {
          const instance = await w.platform.applications.create(
            w.account,
            { userId: null, login: null },
            { mode: 'LIVE' },
          );
          const owner = { userId: w.ids.ann, isAdmin: false, mode: 'LIVE' as const };
          await w.platform.applications.attach(
            w.account,
            owner,
            { userId: w.ids.ann, login: 'ann' },
            instance.id,
            [id],
          );
          return call(ctx, 'detach_file', id, instance.id);
        },
      },
      simple('save_file', 'WRITE', () => ['new', {}]),
      {
        fn: 'save_file (deprecated)',
        needs: 'WRITE',
        run: (ctx, id) => call(ctx, 'save_file', id, 'new', 'UTF-8'),
      },
      simple('append_file', 'WRITE', () => ['more']),
      simple('delete_file', 'WRITE'),
      simple('save_file_desc', 'WRITE', () => [{ name: 'renamed' }]),
      simple('update_file', 'WRITE', () => ['renamed', 'text/plain']),
      simple('file_replace', 'WRITE', () => ['x', 'y']),
      ...RIGHTS_FUNCTIONS.map((fn) =>
        simple(fn, 'WRITE', () => [fn.endsWith('lane') ? w.ids.otherLane : 'dora']),
      ),
    ];
    const subjects = [
      { kind: 'user' as const, login: 'carl' as const, grantee: () => 'carl' as unknown },
      { kind: 'lane' as const, login: 'dora' as const, grantee: () => w.ids.managers as unknown },
    ];
    for (const subject of subjects)
      for (const level of ['none', 'READ', 'WRITE'] as const)
        describe(`${subject.kind} granted ${level === 'none' ? 'nothing' : level}`, () => {
          for (const c of cases) {
            const allowed = level === 'WRITE' || (level === 'READ' && c.needs === 'READ');
            it(`${c.fn} (needs ${c.needs}) is ${allowed ? 'allowed' : 'denied'}`, async () => {
              const id = c.file ? await c.file() : await createText(ann, 'm.txt', 'x');
              if (level !== 'none') {
                const fn = `R_${level === 'READ' ? 'read' : 'update'}_file_add_${subject.kind}`;
                await call(ann, fn, id, subject.grantee());
              }
              const ctx = await as(w, subject.login);
              const fn = c.fn.replace(' (deprecated)', '');
              if (allowed) await expect(c.run(ctx, id)).resolves.not.toBeUndefined();
              else
                await expect(c.run(ctx, id)).rejects.toThrow(
                  `${fn}: Access denied: no ${c.needs} right on file ${id}.`,
                );
            });
          }
        });
  });
});
