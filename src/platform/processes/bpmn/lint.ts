/**
 * The checks a BPMN model gets when it is saved (docs/console.md, "Validation"): bpmnlint's
 * recommended rules, and flowmark's own — each element outside the executable subset. Both only
 * warn: a model that cannot become a process graph at all is refused before this (readBpmn and the
 * definition's checks answer 400), and one with elements outside the subset is kept and refused
 * when it would run.
 */
import { createRequire } from 'node:module';
import { moddle } from './read.js';
import type { UnsupportedElement } from '../graph.js';

export interface Finding {
  /** The element's id ('' for the whole model). */
  id: string;
  /** `bpmnlint/<rule>` or `flowmark/executable-subset`. */
  rule: string;
  message: string;
  /** Always `warning`: what refuses a save is an error of the definition, not a finding. */
  severity: 'warning';
}

interface Report {
  id?: string;
  message: string;
}
interface BpmnlintLinter {
  lint(root: unknown): Promise<Record<string, Report[]>>;
}
interface Bpmnlint {
  Linter: new (options: { config: unknown; resolver: unknown }) => BpmnlintLinter;
}
type NodeResolverClass = new (options: { require: NodeRequire }) => unknown;

/**
 * A linter of its own per model: a Linter keeps the rules it made, and some rules keep state
 * between runs (no-duplicate-sequence-flows remembers the flows it saw), so a shared one would
 * report the second model's flows as duplicates of the first's. Node caches the modules.
 */
function recommended(): BpmnlintLinter {
  const require = createRequire(import.meta.url);
  const { Linter }: Bpmnlint = require('bpmnlint');
  const NodeResolver: NodeResolverClass = require('bpmnlint/lib/resolver/node-resolver');
  return new Linter({
    config: { extends: 'bpmnlint:recommended' },
    resolver: new NodeResolver({ require }),
  });
}

/** The findings of a model (already read by readBpmn: it parses) and of its unsupported elements. */
export async function lintBpmn(xml: string, unsupported: UnsupportedElement[]): Promise<Finding[]> {
  const { rootElement } = await moddle().fromXML(xml);
  const results = await recommended().lint(rootElement);
  const findings: Finding[] = [];
  for (const rule of Object.keys(results).sort())
    for (const report of results[rule]!)
      findings.push({
        id: report.id ?? '',
        rule: `bpmnlint/${rule}`,
        message: report.message,
        severity: 'warning',
      });
  for (const element of unsupported)
    findings.push({
      id: element.id,
      rule: 'flowmark/executable-subset',
      message: `${element.type}${element.line === null ? '' : ` (line ${element.line})`} is outside the executable subset: a request of this process is refused`,
      severity: 'warning',
    });
  return findings;
}
