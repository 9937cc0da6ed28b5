/** Reading bpmn-moddle's elements: a property that holds an element, or a list of them. */
import type { ModdleElement } from 'bpmn-moddle';

export function isElement(value: unknown): value is ModdleElement {
  return typeof value === 'object' && value !== null && '$type' in value;
}

export function list(value: unknown): ModdleElement[] {
  return Array.isArray(value) ? value.filter(isElement) : [];
}
