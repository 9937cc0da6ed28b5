/**
 * The diagram's properties pane (docs/console.md, "The diagram"): for a sequence flow leaving an
 * exclusive or inclusive gateway, its condition (a template printing true or false) and whether it
 * is the gateway's default flow; for a task, its flowmark extension elements — input and output
 * variables, a user task's form fields, the retry policy. Each change is written into the model
 * (bpmn-js `modeling`, so it can be undone); the diagram's save sends it.
 */
import type { BpmnJs, BusinessObject, DiagramElement } from './bpmn-js.js';
import { field, fill, h } from './dom.js';

interface Modeling {
  updateProperties(element: DiagramElement, properties: Record<string, unknown>): void;
}
interface Moddle {
  create(type: string, properties?: Record<string, unknown>): BusinessObject;
}
const GATEWAYS = ['bpmn:ExclusiveGateway', 'bpmn:InclusiveGateway'];
const TASKS = ['bpmn:Task', 'bpmn:ScriptTask', 'bpmn:UserTask', 'bpmn:CallActivity'];
const OURS = ['flowmark:Input', 'flowmark:Output', 'flowmark:Field', 'flowmark:Retry'];

function isObject(value: unknown): value is BusinessObject {
  return typeof value === 'object' && value !== null && '$type' in value;
}

/** The elements of a list property (bpmn-js keeps them in arrays). */
function objects(value: unknown): BusinessObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function isDiagramElement(value: unknown): value is DiagramElement {
  return (
    typeof value === 'object' &&
    value !== null &&
    'id' in value &&
    typeof value.id === 'string' &&
    'businessObject' in value &&
    isObject(value.businessObject)
  );
}

/** A connection's source shape. */
function sourceOf(element: DiagramElement): DiagramElement | undefined {
  return 'source' in element && isDiagramElement(element.source) ? element.source : undefined;
}

/** The pane of a selected element; null when it has no properties of ours. */
export function propertiesPane(modeler: BpmnJs, element: DiagramElement): HTMLElement | null {
  const bo = element.businessObject;
  const source = sourceOf(element);
  if (bo.$type === 'bpmn:SequenceFlow' && source && GATEWAYS.includes(source.businessObject.$type))
    return flowPane(modeler, element, source);
  if (TASKS.includes(bo.$type)) return taskPane(modeler, element);
  return null;
}

function flowPane(modeler: BpmnJs, flow: DiagramElement, gateway: DiagramElement): HTMLElement {
  const modeling = modeler.get<Modeling>('modeling');
  const moddle = modeler.get<Moddle>('moddle');
  const bo = flow.businessObject;
  const label = `Condition of ${bo.name || bo.id}`;
  const expression = isObject(bo.conditionExpression) ? bo.conditionExpression : undefined;
  const condition = h('textarea', {
    rows: 2,
    class: 'condition',
    'aria-label': label,
    placeholder: '${(amount > 100)?c}',
    onchange: () =>
      modeling.updateProperties(flow, {
        conditionExpression:
          condition.value.trim() === ''
            ? undefined
            : moddle.create('bpmn:FormalExpression', { body: condition.value.trim() }),
      }),
  });
  condition.value = typeof expression?.body === 'string' ? expression.body : '';
  const isDefault = h('input', {
    type: 'checkbox',
    onchange: () => modeling.updateProperties(gateway, { default: isDefault.checked ? bo : undefined }),
  });
  isDefault.checked = gateway.businessObject.default === bo;
  const kind = gateway.businessObject.$type === 'bpmn:ExclusiveGateway' ? 'exclusive' : 'inclusive';
  return h(
    'section',
    { class: 'properties', 'aria-label': `Properties of ${bo.id}` },
    h('h3', null, `Sequence flow ${bo.name || bo.id}`),
    h(
      'p',
      { class: 'meta' },
      `Leaves the ${kind} gateway ${gateway.businessObject.name || gateway.businessObject.id}: taken when its condition prints true (a flow without one is taken); the default flow when no condition holds.`,
    ),
    h('label', { class: 'pane-title', for: (condition.id ||= `condition-${bo.id}`) }, label),
    condition,
    h('label', { class: 'checkbox' }, isDefault, ' Default flow of the gateway'),
  );
}

interface Variable {
  name: string;
  template: string;
}

function taskPane(modeler: BpmnJs, task: DiagramElement): HTMLElement {
  const modeling = modeler.get<Modeling>('modeling');
  const moddle = modeler.get<Moddle>('moddle');
  const bo = task.businessObject;
  const values = objects(isObject(bo.extensionElements) ? bo.extensionElements.values : undefined);
  const of = (type: string) => values.filter((v) => v.$type === type);
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const state = {
    input: of('flowmark:Input').map((v) => ({ name: text(v.name), template: text(v.value) })),
    output: of('flowmark:Output').map((v) => ({ name: text(v.name), template: text(v.value) })),
    fields: of('flowmark:Field').map((v) => text(v.name)),
    attempts: String(of('flowmark:Retry')[0]?.attempts ?? ''),
    backoff: text(of('flowmark:Retry')[0]?.backoff),
  };
  const userTask = bo.$type === 'bpmn:UserTask';

  /** The task's extension elements from the pane: ours rebuilt, any others kept in front. */
  const write = () => {
    const kept = values.filter((v) => !OURS.includes(v.$type));
    const ours: BusinessObject[] = [
      ...state.input
        .filter((v) => v.name !== '')
        .map((v) => moddle.create('flowmark:Input', { name: v.name, value: v.template })),
      ...state.output
        .filter((v) => v.name !== '')
        .map((v) => moddle.create('flowmark:Output', { name: v.name, value: v.template })),
      ...(userTask
        ? state.fields.filter((f) => f !== '').map((f) => moddle.create('flowmark:Field', { name: f }))
        : []),
    ];
    const attempts = Number(state.attempts);
    if (state.attempts.trim() !== '' && Number.isInteger(attempts))
      ours.push(
        moddle.create('flowmark:Retry', {
          attempts,
          ...(state.backoff.trim() !== '' ? { backoff: state.backoff.trim() } : {}),
        }),
      );
    const all = [...kept, ...ours];
    modeling.updateProperties(task, {
      extensionElements:
        all.length === 0 ? undefined : moddle.create('bpmn:ExtensionElements', { values: all }),
    });
  };

  const variables = (title: string, list: Variable[]) => {
    const rows = h('div', { class: 'variables' });
    const render = () =>
      fill(
        rows,
        list.map((v, i) => {
          const name = h('input', {
            type: 'text',
            'aria-label': `${title} ${i + 1} name`,
            value: v.name,
            oninput: () => ((v.name = name.value.trim()), write()),
          });
          const template = h('input', {
            type: 'text',
            class: 'template',
            'aria-label': `${title} ${i + 1} template`,
            value: v.template,
            oninput: () => ((v.template = template.value), write()),
          });
          const remove = h(
            'button',
            {
              type: 'button',
              class: 'link',
              'aria-label': `Remove ${title.toLowerCase()} ${i + 1}`,
              onclick: () => (list.splice(i, 1), write(), render()),
            },
            'Remove',
          );
          return h('div', { class: 'row' }, name, ' = ', template, remove);
        }),
        h(
          'button',
          { type: 'button', onclick: () => (list.push({ name: '', template: '' }), render()) },
          `Add ${title.toLowerCase()}`,
        ),
      );
    render();
    return h('fieldset', null, h('legend', null, `${title}s`), rows);
  };

  const fields = h('input', {
    type: 'text',
    value: state.fields.join(', '),
    oninput: () => {
      state.fields = fields.value.split(',').map((f) => f.trim());
      write();
    },
  });
  const attempts = h('input', {
    type: 'number',
    min: 1,
    max: 100,
    value: state.attempts,
    oninput: () => ((state.attempts = attempts.value), write()),
  });
  const backoff = h('input', {
    type: 'text',
    placeholder: 'PT2S',
    value: state.backoff,
    oninput: () => ((state.backoff = backoff.value), write()),
  });
  return h(
    'section',
    { class: 'properties', 'aria-label': `Properties of ${bo.id}` },
    h('h3', null, `Properties of ${bo.name || bo.id}`),
    h('p', { class: 'meta' }, 'flowmark extension elements: written into the diagram; save it to keep them.'),
    variables('Input', state.input),
    variables('Output', state.output),
    userTask ? field('Form fields (comma-separated)', fields) : null,
    h('div', { class: 'row' }, field('Retry attempts', attempts), field('Retry backoff', backoff)),
  );
}
