/**
 * The flowmark BPMN extension namespace (docs/hosts.md, "BPMN") for the console's modeler, so that
 * it reads and creates `flowmark:input`, `flowmark:output`, `flowmark:field`, `flowmark:retry` and
 * keeps the other flowmark attributes typed. The console talks HTTP only: this is a copy of the
 * server's descriptor (src/platform/processes/bpmn/descriptor.ts), which
 * test/console/flowmark-moddle.test.ts keeps equal to it.
 */
const attr = (name: string, type = 'String') => ({ name, isAttr: true, type });
const body = { name: 'value', isBody: true, type: 'String' };

export const flowmarkModdle = {
  name: 'flowmark',
  uri: 'urn:flowmark:bpmn',
  prefix: 'flowmark',
  xml: { tagAlias: 'lowerCase' },
  associations: [],
  types: [
    { name: 'Input', superClass: ['Element'], properties: [attr('name'), body] },
    { name: 'Output', superClass: ['Element'], properties: [attr('name'), body] },
    { name: 'Field', superClass: ['Element'], properties: [attr('name')] },
    { name: 'Retry', superClass: ['Element'], properties: [attr('attempts', 'Integer'), attr('backoff')] },
    { name: 'Loop', superClass: ['Element'], properties: [attr('count'), attr('over'), attr('while')] },
    { name: 'Reminder', superClass: ['Element'], properties: [attr('after'), body] },
    { name: 'Definition', superClass: ['Element'], properties: [body] },
    { name: 'CollectionTrigger', superClass: ['Element'], properties: [attr('collection'), body] },
    { name: 'ProcessProperties', extends: ['bpmn:Process'], properties: [attr('project', 'Integer')] },
    {
      name: 'ActivityProperties',
      extends: ['bpmn:Activity'],
      properties: [attr('step', 'Integer'), attr('lane', 'Integer')],
    },
    {
      name: 'UserTaskProperties',
      extends: ['bpmn:UserTask'],
      properties: [attr('deadline'), attr('onTimeout', 'Integer'), attr('widgets')],
    },
    { name: 'LaneProperties', extends: ['bpmn:Lane'], properties: [attr('lane', 'Integer')] },
    {
      name: 'TimerProperties',
      extends: ['bpmn:TimerEventDefinition'],
      properties: [attr('timezone')],
    },
    { name: 'StartEventProperties', extends: ['bpmn:StartEvent'], properties: [attr('enabled', 'Boolean')] },
    { name: 'CallActivityProperties', extends: ['bpmn:CallActivity'], properties: [attr('wait', 'Boolean')] },
    {
      name: 'MultiInstanceProperties',
      extends: ['bpmn:MultiInstanceLoopCharacteristics'],
      properties: [attr('collection')],
    },
  ],
};
