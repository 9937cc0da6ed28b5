/**
 * The flowmark extension namespace of BPMN models, `urn:flowmark:bpmn` (docs/hosts.md, "BPMN"): a
 * moddle descriptor, read by the server's BPMN reader and by the console's modeler (a leaf: the
 * browser loads it too). Elements inside a task's `extensionElements` — input and output
 * variables, form fields, a retry policy, a loop, a reminder, an inline sub-process; a start
 * event's collection trigger — and attributes on the process (project), on a timer event
 * definition (a cron cycle's time zone), on a lane (its flowmark lane's id), on tasks (step id,
 * lane, deadline, on_timeout, widgets, wait) and on a multi-instance marker (collection).
 */
export const FLOWMARK_NS = 'urn:flowmark:bpmn';

const attr = (name: string, type = 'String') => ({ name, isAttr: true, type });
const body = { name: 'value', isBody: true, type: 'String' };

export const flowmarkDescriptor = {
  name: 'flowmark',
  uri: FLOWMARK_NS,
  prefix: 'flowmark',
  xml: { tagAlias: 'lowerCase' },
  associations: [],
  types: [
    { name: 'Input', superClass: ['Element'], properties: [attr('name'), body] },
    { name: 'Output', superClass: ['Element'], properties: [attr('name'), body] },
    { name: 'Field', superClass: ['Element'], properties: [attr('name')] },
    { name: 'Retry', superClass: ['Element'], properties: [attr('attempts', 'Integer'), attr('backoff')] },
    {
      name: 'Loop',
      superClass: ['Element'],
      properties: [attr('count'), attr('over'), attr('while'), attr('parallel', 'Boolean')],
    },
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
