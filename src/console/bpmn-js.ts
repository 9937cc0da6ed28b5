/**
 * bpmn-js in the console (docs/console.md, "The diagram"): its prebuilt bundles and stylesheets,
 * served by the server under /console/vendor/, loaded on first use. Each bundle defines the
 * global `BpmnJS`; it is taken and removed as soon as its script ran, so the modeler and the
 * viewer can both be loaded on one page.
 */
import { send } from '../client/http.js';

/** What the console uses of a bpmn-js modeler or viewer. */
export interface BpmnJs {
  importXML(xml: string): Promise<{ warnings: unknown[] }>;
  saveXML(options?: { format?: boolean }): Promise<{ xml?: string }>;
  get<T = unknown>(service: string): T;
  on(event: string, listener: (event: never) => void): void;
  destroy(): void;
}

/** A diagram-js shape or connection, with its BPMN element. */
export interface DiagramElement {
  id: string;
  type: string;
  businessObject: BusinessObject;
}

export interface BusinessObject {
  $type: string;
  id: string;
  name?: string;
  script?: string;
  scriptFormat?: string;
  [property: string]: unknown;
}

export type BpmnJsClass = new (options: {
  container: HTMLElement;
  /** moddle descriptors of extension namespaces, by prefix (the flowmark one). */
  moddleExtensions?: Record<string, unknown>;
}) => BpmnJs;

declare global {
  interface Window {
    /** What a bpmn-js bundle defines, taken at once by load(). */
    BpmnJS?: BpmnJsClass;
  }
}

const BUNDLES = { modeler: 'vendor/bpmn-modeler.js', viewer: 'vendor/bpmn-viewer.js' } as const;
const STYLESHEETS = ['vendor/diagram-js.css', 'vendor/bpmn-js.css', 'vendor/bpmn-font/css/bpmn.css'];

const loading = new Map<keyof typeof BUNDLES, Promise<BpmnJsClass>>();
/** Loads run one after the other: each takes the global its own script defined. */
let queue: Promise<unknown> = Promise.resolve();

export function bpmnJs(kind: keyof typeof BUNDLES): Promise<BpmnJsClass> {
  let found = loading.get(kind);
  if (!found) {
    styles();
    found = queue.then(() => load(BUNDLES[kind]));
    queue = found.catch(() => undefined);
    found.catch(() => loading.delete(kind)); // a later page may try again
    loading.set(kind, found);
  }
  return found;
}

function load(src: string): Promise<BpmnJsClass> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.addEventListener('load', () => {
      const Class = window.BpmnJS;
      delete window.BpmnJS;
      script.remove();
      if (Class) resolve(Class);
      else reject(new Error(`${src} did not define BpmnJS.`));
    });
    script.addEventListener('error', () => reject(new Error(`The diagram library ${src} did not load.`)));
    document.head.append(script);
  });
}

let styled = false;
function styles(): void {
  if (styled) return;
  styled = true;
  for (const href of STYLESHEETS) {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    document.head.append(link);
  }
}

/** The BPMN export of a stored definition (GET /api/v1/processes/:id?format=bpmn). */
export async function definitionXml(id: number): Promise<string> {
  const response = await send('GET', `/api/v1/processes/${id}?format=bpmn`, { accept: 'application/xml' });
  return response.text();
}
