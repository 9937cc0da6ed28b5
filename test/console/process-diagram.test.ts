/**
 * The process diagram in real Chromium against a real server with the process host, on every
 * engine (docs/console.md, "The diagram"): a process drawn in the console's modeler through its
 * own UI (the context pad appends an exclusive gateway and two tasks, the replace menu makes them
 * script tasks, direct editing names them, the connect tool joins the second to the end event),
 * a task's script typed in the template editor, a condition on one of the gateway's flows and the
 * other made its default, an output and a retry policy set in the properties pane, saved as BPMN
 * with its findings listed; the
 * saved model shown again with the script; the JSON tab; a request started from the page, whose
 * diagram shows each task's status (done, skipped) and timing; a failed request whose failed task
 * shows its error; a model with an element outside the executable subset marked red.
 * Screenshots (SQLite run) go to test-results/screenshots/ (copies in docs/screenshots/).
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it, vi } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';
import { describeWithBrowser } from '../client/support/browser.js';
import { replaceText, screenshot, submitLogin } from './support.js';

const SCRIPT = 'Box of ${amount?c} by ${date_offset("2026-01-30", 2)}';
const CONDITION = '${((size!"big") == "big")?c}';
const fixture = (name: string) => readFileSync(new URL(`../fixtures/bpmn/${name}`, import.meta.url), 'utf8');

describeWithBrowser('console: the process diagram', (browser) => {
  describeEachEngine('process diagram', (engine) => {
    const server = useServer(engine, (platform) => ({
      hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
    }));
    let page: Page;
    const pageErrors: string[] = [];
    /** The ids bpmn-js gave the drawn elements. */
    const drawn = { gateway: '', pack: '', letter: '', end: '', toPack: '', toLetter: '' };
    let processId = 0;

    beforeAll(async () => {
      vi.setConfig({ testTimeout: 60_000 });
      page = await browser.context.newPage();
      page.setDefaultTimeout(15_000);
      await page.setViewportSize({ width: 1280, height: 900 });
      page.on('pageerror', (e) => pageErrors.push(e.message));
      page.on('console', (m) => {
        // A refused save's 400 is asserted where expected; anything else logged as an error fails.
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource:'))
          pageErrors.push(m.text());
      });
      page.on('dialog', (d) => void d.accept());
    });

    const shoot = (name: string) => screenshot(page, engine.name, name);
    const shape = (id: string) => page.locator(`.diagram-canvas .djs-element[data-element-id="${id}"]`);
    const selectedId = () =>
      page.locator('.diagram-canvas .djs-shape.selected').getAttribute('data-element-id');
    const contextAction = (action: string) =>
      page.locator(`.djs-context-pad [data-action="${action}"]`).click();
    /** Appends from the selected shape with the context pad; the new shape's id. */
    const append = async (action: string) => {
      const before = await selectedId();
      await contextAction(action);
      await page.waitForFunction(
        (old) =>
          document.querySelector('.diagram-canvas .djs-shape.selected')?.getAttribute('data-element-id') !==
          old,
        before,
      );
      // Appending a task opens its label's editor: leave it empty for now.
      await page.keyboard.press('Escape');
      return (await selectedId())!;
    };
    /** Selects a shape by a click (on the empty canvas first: a click on the selected shape unselects it). */
    const select = async (id: string) => {
      await page
        .locator('.diagram-canvas svg')
        .first()
        .click({ position: { x: 900, y: 440 } });
      await shape(id).click();
      await page.locator('.djs-context-pad.open').waitFor();
    };
    const replaceWith = async (id: string, entry: string) => {
      await select(id);
      await contextAction('replace');
      // The menu opens where the shape is: a shape near the canvas's edge may leave the entry outside
      // the viewport, where a mouse click cannot reach it. The entry's own click handler is what counts.
      await page.locator(`.djs-popup [data-id="${entry}"]`).dispatchEvent('click');
      await page.locator('.djs-popup').waitFor({ state: 'detached' });
      await page.waitForFunction(
        (id) => document.querySelector(`.diagram-canvas .djs-shape.selected[data-element-id="${id}"]`),
        id,
      );
    };
    const rename = async (id: string, name: string) => {
      await shape(id).dblclick();
      const editing = page.locator('.djs-direct-editing-parent');
      await editing.waitFor();
      await page.keyboard.type(name);
      await page
        .locator('.diagram-canvas svg')
        .first()
        .click({ position: { x: 700, y: 420 } });
    };
    /** Selects a sequence flow: a click on its line, or (a bent line, whose box's centre is off it) the modeler's selection. */
    const selectFlow = async (id: string, how: 'click' | 'selection') => {
      await page
        .locator('.diagram-canvas svg')
        .first()
        .click({ position: { x: 900, y: 440 } });
      if (how === 'click') {
        // A straight line's box has no height (Playwright calls it invisible): a click on its middle.
        const box = (await shape(id).locator('.djs-hit').first().boundingBox())!;
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      } else
        await page.evaluate((flowId) => {
          const canvas = document.querySelector('.diagram-canvas') as HTMLElement & {
            modeler: { get(s: string): { get(id: string): unknown; select(e: unknown): void } };
          };
          canvas.modeler.get('selection').select(canvas.modeler.get('elementRegistry').get(flowId));
        }, id);
      await page.locator(`section.properties[aria-label="Properties of ${id}"]`).waitFor();
    };
    const fact = (name: string) => page.locator(`dl.facts dt:text-is("${name}") + dd`);
    const badge = (id: string) => page.locator(`.node-badge[data-node="${id}"]`);

    it('draws a process with the modeler: a gateway and two script tasks', async () => {
      await page.goto(`${server.url}/console/#/processes`);
      await submitLogin(page, 'acme', 'admin');
      await page.getByRole('heading', { name: 'Processes', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New definition' }).click();
      expect(await page.getByRole('tab', { name: 'Diagram' }).getAttribute('aria-selected')).toBe('true');
      await page.locator('.diagram-canvas[data-ready]').waitFor();
      await page.getByLabel('Process name').fill('Ship order');

      await select('StartEvent_1');
      drawn.gateway = await append('append.gateway');
      expect(drawn.gateway).toMatch(/^Gateway_/);
      drawn.pack = await append('append.append-task');
      drawn.end = await append('append.end-event');
      await select(drawn.gateway);
      drawn.letter = await append('append.append-task');
      await replaceWith(drawn.pack, 'replace-with-script-task');
      await replaceWith(drawn.letter, 'replace-with-script-task');
      // The connect tool: from the second task to the end event.
      await select(drawn.letter);
      await contextAction('connect');
      await shape(drawn.end).click();
      await rename(drawn.pack, 'Pack');
      await rename(drawn.letter, 'Letter');
      await rename(drawn.gateway, 'Size?');

      const types = await page.evaluate(() => {
        const canvas = document.querySelector('.diagram-canvas') as HTMLElement & {
          modeler: {
            get(s: string): { getAll(): Array<{ type: string; businessObject: { name?: string } }> };
          };
        };
        return canvas.modeler
          .get('elementRegistry')
          .getAll()
          .filter((e) => e.type !== 'label' && e.type !== 'bpmn:Process')
          .map((e) => `${e.type}${e.businessObject.name ? ` ${e.businessObject.name}` : ''}`)
          .sort();
      });
      expect(types).toEqual([
        'bpmn:EndEvent',
        'bpmn:ExclusiveGateway Size?',
        'bpmn:ScriptTask Letter',
        'bpmn:ScriptTask Pack',
        'bpmn:SequenceFlow',
        'bpmn:SequenceFlow',
        'bpmn:SequenceFlow',
        'bpmn:SequenceFlow',
        'bpmn:SequenceFlow',
        'bpmn:StartEvent Start',
      ]);
    });

    it("edits a script task's script in the template editor, with completion", async () => {
      await select(drawn.pack);
      const editor = page.getByLabel('Script of Pack', { exact: true });
      await editor.waitFor();
      await replaceText(page, editor, 'Box of ${amount?c} by ');
      await page.keyboard.type('${date_off');
      const listbox = page.getByRole('listbox', { name: 'Functions' });
      await listbox.waitFor();
      expect(await listbox.getByRole('option').allTextContents()).toEqual(['date_offsetUtilities']);
      await page.keyboard.press('Enter');
      await page.keyboard.type('"2026-01-30", 2)}');
      expect(await editor.inputValue()).toBe(SCRIPT);
      await select(drawn.letter);
      const letter = page.getByLabel('Script of Letter', { exact: true });
      await replaceText(page, letter, 'Letter');
      await shoot('process-diagram-draw');
    });

    it("sets a gateway flow's condition and the default flow, and a task's extension elements", async () => {
      const flows = await page.evaluate(() => {
        const canvas = document.querySelector('.diagram-canvas') as HTMLElement & {
          modeler: {
            get(s: string): {
              getAll(): Array<{ id: string; type: string; source?: { id: string }; target?: { id: string } }>;
            };
          };
        };
        return canvas.modeler
          .get('elementRegistry')
          .getAll()
          .filter((e) => e.type === 'bpmn:SequenceFlow')
          .map((e) => ({ id: e.id, source: e.source!.id, target: e.target!.id }));
      });
      drawn.toPack = flows.find((f) => f.source === drawn.gateway && f.target === drawn.pack)!.id;
      drawn.toLetter = flows.find((f) => f.source === drawn.gateway && f.target === drawn.letter)!.id;

      await selectFlow(drawn.toPack, 'click');
      const condition = page.getByLabel(`Condition of ${drawn.toPack}`, { exact: true });
      await condition.fill(CONDITION);
      await condition.press('Tab');
      expect(await page.getByLabel('Default flow of the gateway').isChecked()).toBe(false);
      await selectFlow(drawn.toLetter, 'selection');
      expect(await page.getByLabel(`Condition of ${drawn.toLetter}`, { exact: true }).inputValue()).toBe('');
      await page.getByLabel('Default flow of the gateway').check();
      // Selected again, the pane reads the model: the condition kept, the default on the other flow.
      await selectFlow(drawn.toPack, 'click');
      expect(await page.getByLabel(`Condition of ${drawn.toPack}`, { exact: true }).inputValue()).toBe(
        CONDITION,
      );
      expect(await page.getByLabel('Default flow of the gateway').isChecked()).toBe(false);

      await select(drawn.pack);
      await page.getByRole('button', { name: 'Add output' }).click();
      await page.getByLabel('Output 1 name').fill('box');
      await page.getByLabel('Output 1 template').fill('${P_result}');
      await select(drawn.letter);
      await page.getByLabel('Retry attempts').fill('2');
      await page.getByLabel('Retry backoff').fill('PT1S');
      await page.getByRole('button', { name: 'Add input' }).click();
      await page.getByLabel('Input 1 name').fill('unused');
      await page.getByRole('button', { name: 'Remove input 1' }).click();
      expect(await page.getByLabel('Input 1 name').count()).toBe(0);
      await shoot('process-diagram-properties');
    });

    it('saves the drawing as BPMN and lists its findings', async () => {
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByText(/^Saved Ship order \(id \d+\)\.$/).waitFor();
      processId = Number(/id (\d+)/.exec((await page.getByText(/^Saved Ship order/).textContent())!)![1]);
      // The address follows once the list has refreshed, just after the message.
      await page.waitForURL((url) => url.hash === `#/processes/${processId}`);
      await page.getByRole('heading', { name: 'Process Ship order' }).waitFor();
      const findings = await page.getByRole('list', { name: 'Findings' }).locator('li').allTextContents();
      // bpmnlint wants a conditional flow named.
      expect(findings.map((f) => f.replace(drawn.end, 'End').replace(drawn.toPack, 'ToPack'))).toEqual([
        'End bpmnlint/fake-join: Incoming flows do not join',
        'ToPack bpmnlint/label-required: Element is missing label/name',
        'End bpmnlint/label-required: Element is missing label/name',
      ]);
      const stored = await page.evaluate(async (id) => {
        const r = await fetch(`/api/v1/processes/${id}`);
        return (await r.json()) as { format: string; definition: { steps: unknown[] } };
      }, processId);
      expect(stored.format).toBe('bpmn');
      expect(stored.definition.steps).toEqual([
        {
          id: 1,
          type: 'script',
          name: 'Pack',
          lane: null,
          input: [],
          output: [{ name: 'box', template: '${P_result}' }],
          loop: null,
          script: SCRIPT,
        },
        {
          id: 2,
          type: 'script',
          name: 'Letter',
          lane: null,
          input: [],
          output: [],
          loop: null,
          retry: { attempts: 2, backoff: 'PT1S' },
          script: 'Letter',
        },
      ]);
      const graph = await page.evaluate(async (id) => {
        const r = await fetch(`/api/v1/processes/${id}`);
        return ((await r.json()) as { definition: { graph: { nodes: unknown[]; flows: unknown[] } } })
          .definition.graph;
      }, processId);
      expect(graph.nodes).toContainEqual({
        id: drawn.gateway,
        kind: 'exclusive',
        name: 'Size?',
        default: drawn.toLetter,
      });
      expect(graph.flows).toContainEqual({
        id: drawn.toPack,
        source: drawn.gateway,
        target: drawn.pack,
        condition: CONDITION,
      });
      expect(graph.flows).toContainEqual({ id: drawn.toLetter, source: drawn.gateway, target: drawn.letter });
      await shoot('process-diagram-saved');
    });

    it('shows the saved model again, its script in the editor, and the JSON tab', async () => {
      await page.reload();
      await page.locator('.diagram-canvas[data-ready]').waitFor();
      await select(drawn.pack);
      expect(await page.getByLabel('Script of Pack', { exact: true }).inputValue()).toBe(SCRIPT);
      await page.getByRole('tab', { name: 'JSON' }).click();
      const json = JSON.parse(await page.getByLabel('Definition (JSON)').inputValue()) as { name: string };
      expect(json.name).toBe('Ship order');
      await page.getByRole('tab', { name: 'Diagram' }).click();
      await page.locator('.diagram-canvas[data-ready]').waitFor();
      await selectFlow(drawn.toPack, 'click');
      expect(await page.getByLabel(`Condition of ${drawn.toPack}`, { exact: true }).inputValue()).toBe(
        CONDITION,
      );
      await selectFlow(drawn.toLetter, 'selection');
      expect(await page.getByLabel('Default flow of the gateway').isChecked()).toBe(true);
      await select(drawn.pack);
      expect(await page.getByLabel('Output 1 template').inputValue()).toBe('${P_result}');
    });

    it("starts a request and shows each node's status on its diagram", async () => {
      await page.getByLabel('Mode').selectOption('TEST');
      await page.getByLabel('Input data (JSON object)').fill('{"amount": 5}');
      await page.getByRole('button', { name: 'Start a request' }).click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      expect(await fact('Status').textContent()).toBe('201 COMPLETED');
      await page.locator('.request-diagram .diagram-canvas[data-ready]').waitFor();
      expect(await page.locator('.diagram-legend').textContent()).toBe('1 done · 1 skipped');
      expect(await badge(drawn.pack).textContent()).toMatch(/^done · (\d+ ms|\d+(\.\d)? s)$/);
      expect(await badge(drawn.letter).textContent()).toBe('skipped');
      expect(await shape(drawn.pack).getAttribute('class')).toContain('node-done');
      expect(await shape(drawn.letter).getAttribute('class')).toContain('node-skipped');
      const steps = page.locator('table:has(caption:text("Steps of")) tbody tr');
      expect(await steps.locator('td:nth-child(7)').allTextContents()).toEqual(['"Box of 5 by 2026-02-01"']);
      await shoot('process-diagram-request');
    });

    it('shows a failed node with its error', async () => {
      await page.goto(`${server.url}/console/#/processes/${processId}`);
      await page.locator('.diagram-canvas[data-ready]').waitFor();
      await page.getByLabel('Mode').selectOption('TEST');
      await page.getByRole('button', { name: 'Start a request' }).click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      await page.locator('.request-diagram .diagram-canvas[data-ready]').waitFor();
      expect(await page.locator('.diagram-legend').textContent()).toBe('1 failed · 1 skipped');
      expect(await shape(drawn.pack).getAttribute('class')).toContain('node-failed');
      await badge(drawn.pack).click();
      const error = page.locator('.request-diagram + .eval-error');
      await error.waitFor();
      expect(await error.textContent()).toBe(
        'Step 1 failed: step 1 (Pack) script line 1, column 10: The following has evaluated to null or missing:\n' +
          '==> amount  [in template "step 1 (Pack) script" at line 1, column 10]',
      );
      expect(await page.locator('tr.highlighted td:nth-child(3)').textContent()).toBe('failed');
      await shoot('process-diagram-failed');
    });

    it('takes the default flow when the condition does not hold', async () => {
      await page.goto(`${server.url}/console/#/processes/${processId}`);
      await page.locator('.diagram-canvas[data-ready]').waitFor();
      await page.getByLabel('Mode').selectOption('TEST');
      await page.getByLabel('Input data (JSON object)').fill('{"amount": 5, "size": "small"}');
      await page.getByRole('button', { name: 'Start a request' }).click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      expect(await fact('Status').textContent()).toBe('201 COMPLETED');
      await page.locator('.request-diagram .diagram-canvas[data-ready]').waitFor();
      expect(await page.locator('.diagram-legend').textContent()).toBe('1 done · 1 skipped');
      expect(await badge(drawn.letter).textContent()).toMatch(/^done · (\d+ ms|\d+(\.\d)? s)$/);
      expect(await badge(drawn.pack).textContent()).toBe('skipped');
    });

    it("draws the BPMN MIWG's reference models", async () => {
      for (const name of ['A.1.0', 'A.2.0', 'A.3.0', 'A.4.0', 'B.1.0', 'C.1.0']) {
        const xml = readFileSync(new URL(`../fixtures/bpmn/miwg/${name}.bpmn`, import.meta.url), 'utf8');
        const id = await page.evaluate(async (body) => {
          const r = await fetch('/api/v1/processes', {
            method: 'POST',
            headers: { 'content-type': 'application/xml' },
            body,
          });
          return ((await r.json()) as { id: number }).id;
        }, xml);
        await page.goto(`${server.url}/console/#/processes/${id}`);
        await page.locator('.diagram-canvas[data-ready]').waitFor();
        const shapes = (xml.match(/<bpmndi:BPMNShape /g) ?? []).length;
        expect(await page.locator('.diagram-canvas .djs-shape').count(), name).toBeGreaterThanOrEqual(shapes);
        if (name === 'B.1.0') await shoot('process-diagram-miwg');
        await page.goto(`${server.url}/console/#/processes`);
      }
    });

    it('marks the elements outside the executable subset, and nothing in the pages failed', async () => {
      const complex = fixture('route.bpmn').replaceAll('exclusiveGateway', 'complexGateway');
      const id = await page.evaluate(async (xml) => {
        const r = await fetch('/api/v1/processes', {
          method: 'POST',
          headers: { 'content-type': 'application/xml' },
          body: xml,
        });
        return ((await r.json()) as { id: number }).id;
      }, complex);
      await page.goto(`${server.url}/console/#/processes/${id}`);
      await page.locator('.diagram-canvas[data-ready]').waitFor();
      // Marked as soon as it shows (the stored definition's unsupported elements) …
      expect(await page.locator('.findings-list li.subset').allTextContents()).toEqual([
        'Size flowmark/executable-subset: bpmn:ComplexGateway (line 7) is outside the executable subset: a request of this process is refused',
      ]);
      expect(await shape('Size').getAttribute('class')).toContain('flagged');
      // … and by the save's findings (the document as bpmn-js writes it again).
      await page.getByRole('button', { name: 'Save diagram' }).click();
      await page.getByText(`Saved Route (id ${id}).`).waitFor();
      expect(await page.locator('.findings-list li.subset').allTextContents()).toEqual([
        'Size flowmark/executable-subset: bpmn:ComplexGateway (line 7) is outside the executable subset: a request of this process is refused',
      ]);
      expect(await shape('Size').getAttribute('class')).toContain('flagged');
      await shoot('process-diagram-flagged');
      await page.locator('.findings-list li.subset').getByRole('button', { name: 'Size' }).click();
      expect(await shape('Size').getAttribute('class')).toContain('selected');
      expect(pageErrors).toEqual([]);
    });
  });
});
