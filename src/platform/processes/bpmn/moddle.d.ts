/** What flowmark uses of bpmn-moddle (its package types only describe the BPMN elements). */
declare module 'bpmn-moddle' {
  /** A model element: its `$type`, its properties (by the meta-model), `get`/`set`. */
  export interface ModdleElement {
    readonly $type: string;
    $parent?: ModdleElement;
    $attrs?: Record<string, string>;
    id?: string;
    name?: string;
    [property: string]: unknown;
    get(name: string): unknown;
    set(name: string, value: unknown): void;
  }

  export interface ParseResult {
    rootElement: ModdleElement;
    references: unknown[];
    warnings: Array<{ message: string; element?: ModdleElement }>;
    elementsById: Record<string, ModdleElement>;
  }

  export class BpmnModdle {
    constructor(packages?: Record<string, unknown>, options?: Record<string, unknown>);
    fromXML(xml: string, typeName?: string): Promise<ParseResult>;
    toXML(
      element: ModdleElement,
      options?: { format?: boolean; preamble?: boolean },
    ): Promise<{ xml: string }>;
    create(type: string, properties?: Record<string, unknown>): ModdleElement;
  }
}
