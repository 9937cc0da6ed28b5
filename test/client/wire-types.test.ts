/**
 * The browser client keeps its own copies of the wire types (DESIGN.md: client imports nothing of
 * the server); they must equal the route schemas' types, checked by the type checker and here.
 */
import type { Static } from '@fastify/type-provider-typebox';
import { describe, expect, it } from 'vitest';
import type { Mode as ClientMode } from '../../src/client/project.js';
import type { InterfaceContext as ClientContext } from '../../src/client/web-interface.js';
import { InterfaceContext, Mode } from '../../src/server/schemas.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const modeSame: Same<ClientMode, Static<typeof Mode>> = true;
const contextSame: Same<ClientContext, Static<typeof InterfaceContext>> = true;

describe('the client wire types', () => {
  it('are the route schemas’ types', () => {
    expect([modeSame, contextSame]).toEqual([true, true]);
    const modes: ClientMode[] = ['LIVE', 'ACCEPTANCE', 'TEST'];
    const contexts: ClientContext[] = ['web', 'mobile', 'tablet'];
    const values = (schema: { anyOf: { const: unknown }[] }) => schema.anyOf.map((s) => s.const);
    expect(values(Mode)).toEqual(modes);
    expect(values(InterfaceContext)).toEqual(contexts);
  });
});
