/** BPMN 2.0 documents in and out of process definitions (docs/hosts.md, "BPMN"). */
export { FLOWMARK_NS } from '../../../bpmn-extension/descriptor.js';
export { looksLikeXml, readBpmn, type DefinitionValue } from './read.js';
export { writeBpmn } from './write.js';
