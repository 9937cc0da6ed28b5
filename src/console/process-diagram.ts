/**
 * The process page's diagram (docs/console.md, "The diagram"): the definition's BPMN export in
 * the bpmn-js modeler (its palette, context pad and replace menu), saved back as BPMN XML; the
 * save's findings listed (element, rule, message: a click selects the element) and the elements
 * outside the executable subset marked on the canvas. Selecting a script task opens its script in
 * the template editor (completion as in the playground); a flow out of a gateway, its condition and
 * default; a task, its flowmark extension elements (diagram-properties.ts). Each change is written
 * into the model.
 */
import { send } from '../client/http.js';
import { errorText } from './api.js';
import { bpmnJs, definitionXml, type BpmnJs, type DiagramElement } from './bpmn-js.js';
import { field, fill, h, messageArea } from './dom.js';
import { createTemplateEditor } from './template-editor.js';
import { propertiesPane } from './diagram-properties.js';
import { flowmarkDescriptor } from '../bpmn-extension/descriptor.js';

/** A stored definition as the save answers it (the JSON routes' fields the page uses). */
export interface SavedDefinition {
  id: number;
  name: string;
  definition: { name: string; steps: unknown[] };
  updatedAt: number;
  /** Its elements outside the executable subset, as the JSON routes answer them. */
  unsupported?: Array<{ type: string; id: string; line: number | null }>;
  findings?: Finding[];
}

export interface Finding {
  id: string;
  rule: string;
  message: string;
  severity: string;
}

const SUBSET_RULE = 'flowmark/executable-subset';
const FORMATS = ['freemarker', 'javascript', 'python'];
/** The other names the server reads for a format (docs/hosts.md, "BPMN"). */
const FORMAT_ALIASES: Record<string, string> = { ftl: 'freemarker', js: 'javascript' };

/** A new model: one start event, for the palette to go on from. */
const NEW_MODEL = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" id="Definitions_1" targetNamespace="urn:flowmark:console">
  <bpmn:process id="Process_1" name="New process" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1" name="Start" />
  </bpmn:process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="Process_1">
      <bpmndi:BPMNShape id="StartEvent_1_di" bpmnElement="StartEvent_1">
        <dc:Bounds x="152" y="142" width="36" height="36" />
      </bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
`;

interface Modeling {
  updateProperties(element: DiagramElement, properties: Record<string, unknown>): void;
}
interface Canvas {
  getRootElement(): DiagramElement;
  addMarker(id: string, marker: string): void;
  removeMarker(id: string, marker: string): void;
  zoom(level: 'fit-viewport'): void;
}
interface Registry {
  get(id: string): DiagramElement | undefined;
}

/** The diagram of a stored definition (null: a new one); `saved` after each save. */
export function diagramEditor<D extends SavedDefinition>(
  stored: D | null,
  saved: (definition: D) => Promise<void>,
): HTMLElement {
  let id = stored?.id;
  const message = messageArea();
  const canvas = h('div', { class: 'diagram-canvas', 'aria-label': 'Process diagram' });
  const name = h('input', { type: 'text', required: true, maxlength: 255 });
  name.value = stored?.name ?? 'New process';
  const save = h(
    'button',
    { type: 'button', class: 'primary', disabled: true, onclick: () => void submit() },
    stored ? 'Save diagram' : 'Create',
  );
  const findings = h('div', { class: 'findings' });
  const script = h('div', { class: 'script-pane' });
  const properties = h('div', { class: 'properties-pane' });
  let modeler: BpmnJs | undefined;
  let flagged: string[] = [];
  /** The latest selection: a script pane built for an earlier one is dropped. */
  let selections = 0;

  async function start(): Promise<void> {
    const Modeler = await bpmnJs('modeler');
    modeler = new Modeler({ container: canvas, moddleExtensions: { flowmark: flowmarkDescriptor } });
    try {
      await modeler.importXML(id === undefined ? NEW_MODEL : await definitionXml(id));
    } catch (e) {
      throw new Error(`The diagram cannot be drawn (${errorText(e)}): the JSON tab edits the definition.`, {
        cause: e,
      });
    }
    modeler.get<Canvas>('canvas').zoom('fit-viewport');
    // What the last save found outside the subset, marked from the start (the same words as a save's findings).
    const unsupported = stored?.unsupported ?? [];
    if (unsupported.length > 0)
      show(
        unsupported.map((u) => ({
          id: u.id,
          rule: SUBSET_RULE,
          message: `${u.type}${u.line === null ? '' : ` (line ${u.line})`} is outside the executable subset: a request of this process is refused`,
          severity: 'warning',
        })),
      );
    modeler.on('selection.changed', (event: { newSelection: DiagramElement[] }) => {
      const [only, ...more] = event.newSelection;
      void selected(more.length === 0 ? only : undefined);
    });
    // The page's tests (and a curious user's devtools) reach the modeler here.
    canvas.dataset.ready = 'true';
    Object.assign(canvas, { modeler });
    save.disabled = false;
  }

  /**
   * The properties pane of a selected flow or task, and the script pane of a script task; nothing
   * for any other selection.
   */
  async function selected(element: DiagramElement | undefined): Promise<void> {
    const bo = element?.businessObject;
    const selection = ++selections;
    fill(properties, element && modeler ? propertiesPane(modeler, element) : null);
    if (!element || !modeler || bo?.$type !== 'bpmn:ScriptTask') return fill(script);
    const modeling = modeler.get<Modeling>('modeling');
    const label = `Script of ${bo.name || bo.id}`;
    const template = await createTemplateEditor(label, bo.script ?? '');
    if (selection !== selections) return;
    template.editor.onChange(() => modeling.updateProperties(element, { script: template.editor.value() }));
    const format = h(
      'select',
      { onchange: () => modeling.updateProperties(element, { scriptFormat: format.value }) },
      FORMATS.map((f) => h('option', { value: f }, f)),
    );
    const current = (bo.scriptFormat ?? 'freemarker').toLowerCase();
    format.value = FORMAT_ALIASES[current] ?? (FORMATS.includes(current) ? current : 'freemarker');
    fill(
      script,
      h('h3', null, label),
      h(
        'p',
        { class: 'meta' },
        `Script task ${bo.id}: its changes go into the diagram; save it to keep them.`,
      ),
      field('Script format', format),
      h('label', { class: 'pane-title', for: template.editor.textarea.id }, label),
      template.element,
    );
  }

  async function submit(): Promise<void> {
    if (!modeler) return;
    save.disabled = true;
    try {
      const root = modeler.get<Canvas>('canvas').getRootElement().businessObject;
      if (root.$type === 'bpmn:Process') root.name = name.value;
      const { xml = '' } = await modeler.saveXML({ format: true });
      const response = await send(
        id === undefined ? 'POST' : 'PUT',
        id === undefined ? '/api/v1/processes' : `/api/v1/processes/${id}`,
        { accept: 'application/json', 'content-type': 'application/xml' },
        xml,
      );
      const definition: D = await response.json();
      id = definition.id;
      save.textContent = 'Save diagram';
      show(definition.findings ?? []);
      message.show(`Saved ${definition.name} (id ${definition.id}).`);
      await saved(definition);
    } catch (e) {
      message.show(errorText(e), 'error');
    } finally {
      save.disabled = false;
    }
  }

  /** The findings under the diagram; the elements outside the subset marked on it. */
  function show(list: Finding[]): void {
    const canvasService = modeler!.get<Canvas>('canvas');
    const registry = modeler!.get<Registry>('elementRegistry');
    for (const element of flagged) canvasService.removeMarker(element, 'flagged');
    flagged = list.filter((f) => f.rule === SUBSET_RULE && registry.get(f.id)).map((f) => f.id);
    for (const element of flagged) canvasService.addMarker(element, 'flagged');
    const select = (elementId: string) => {
      const element = registry.get(elementId);
      if (element) modeler!.get<{ select(e: DiagramElement): void }>('selection').select(element);
    };
    fill(
      findings,
      h('h3', null, list.length === 0 ? 'No findings' : `Findings (${list.length})`),
      list.length === 0
        ? null
        : h(
            'ul',
            { class: 'findings-list', 'aria-label': 'Findings' },
            list.map((f) =>
              h(
                'li',
                { class: f.rule === SUBSET_RULE ? 'finding subset' : 'finding' },
                f.id
                  ? h('button', { type: 'button', class: 'link', onclick: () => select(f.id) }, f.id)
                  : '(model)',
                ' ',
                h('code', null, f.rule),
                `: ${f.message}`,
              ),
            ),
          ),
    );
  }

  void start().catch((e: unknown) => message.show(errorText(e), 'error'));
  return h(
    'div',
    { class: 'diagram-editor' },
    h('div', { class: 'row' }, field('Process name', name), save),
    h(
      'p',
      { class: 'hint' },
      'Warnings do not stop a save; elements outside the executable subset are marked in red and refuse to run.',
    ),
    message,
    canvas,
    findings,
    properties,
    script,
  );
}
