/** The scripts the server answers with: composite APIs and web-interface templates (docs/hosts.md). */
export {
  COMPOSITE_METHODS,
  CompositeApis,
  normalisePattern,
  TEMPLATE_MAX_CHARS,
  type CompositeApi,
  type CompositeMethod,
  type NewCompositeApi,
} from './composite-apis.js';
export { WebInterfaceTemplates } from './web-interface-templates.js';
