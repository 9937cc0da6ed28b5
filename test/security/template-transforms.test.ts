/**
 * FreeMarker's shared transforms (`capture_output`, `compress`, `html_escape` …) are reachable from
 * any template: what they capture counts against the output limit of the evaluation, and the
 * variable names they set are plain keys (no prototype reached).
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/template/index.js';

const BIG = '<#assign s = "x"><#list 1..20 as i><#assign s = s + s></#list>';
const STOPPED = 'Template execution stopped: the output exceeds 20000000 characters.';

async function firstLineOf(src: string): Promise<string> {
  try {
    return `output: ${await compile(src, { name: 't.ftl' }).render({})}`;
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

describe('shared transforms under the evaluation limits', () => {
  it.each([
    [
      'capture_output',
      `${BIG}<@capture_output var="x"><#list 1..100 as i>\${s}</#list></@capture_output>\${x?length}`,
    ],
    ['compress', `${BIG}<@compress><#list 1..100 as i>\${s}</#list></@compress>`],
    ['html_escape', `${BIG}<@html_escape><#list 1..100 as i>\${s}</#list></@html_escape>`],
    [
      'normalize_newlines',
      `${BIG}<@normalize_newlines><#list 1..100 as i>\${s}</#list></@normalize_newlines>`,
    ],
  ])('%s stops at the output limit while capturing', async (_name, src) => {
    expect(await firstLineOf(src)).toBe(STOPPED);
  });

  it('capture_output sets prototype-looking names as plain variables', async () => {
    const src =
      '<@capture_output var="__proto__">p</@capture_output><@capture_output global="constructor">c</@capture_output>' +
      '${.vars["__proto__"]} ${constructor} ${({})?keys?size}';
    expect(await firstLineOf(src)).toBe('output: p c 0');
  });
});
