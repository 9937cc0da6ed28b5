/** The console's copy of the flowmark BPMN extension descriptor is the server's. */
import { expect, it } from 'vitest';
import { flowmarkModdle } from '../../src/console/flowmark-moddle.js';
import { flowmarkDescriptor } from '../../src/platform/processes/bpmn/descriptor.js';

it("the console's flowmark moddle descriptor equals the server's", () => {
  expect(flowmarkModdle).toEqual(flowmarkDescriptor);
});
