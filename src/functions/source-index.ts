/**
 * Where each library function lives in the repository, for the generated reference
 * (docs/functions.md): the module that declares it (its `impl` is in the declaration) and the
 * test files that call it. Read from the source tree at docs-generation time only: an installed
 * package has no src/ or test/, and `flowmark functions --markdown` prints the reference without it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface FunctionSources {
  /** Repository-relative path of the declaring module. */
  declaration?: string;
  /** Repository-relative paths of the test files that call or name the function, by path. */
  tests: string[];
}

export type SourceIndex = (name: string) => FunctionSources;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out.sort();
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The index of a checkout rooted at `root`. A function is declared where `name: 'x'` appears in
 * src/functions (or, for declarations built by a helper such as `laneMembership('x', …)`, the
 * first module quoting `'x'`); it is tested by every file under test/ that writes `x(` or names it as a string (tables of
 * functions a test calls in turn).
 */
export function sourceIndex(root: string): SourceIndex {
  const read = (files: string[]) =>
    files.map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
  const modules = read(tsFiles(join(root, 'src/functions'))).filter(
    (m) => !/src\/functions\/(registry|docs|source-index|write-docs|declarations)\.ts$/.test(m.path),
  );
  const tests = read(tsFiles(join(root, 'test')));
  return (name) => {
    const quoted = new RegExp(`['"]${escape(name)}['"]`);
    const declared = new RegExp(`\\bname:\\s*['"]${escape(name)}['"]`);
    const module = modules.find((m) => declared.test(m.text)) ?? modules.find((m) => quoted.test(m.text));
    const call = new RegExp(`(?<![\\w.$])${escape(name)}\\(`);
    return {
      declaration: module?.path.split('\\').join('/'),
      tests: tests
        .filter((t) => call.test(t.text) || quoted.test(t.text))
        .map((t) => t.path.split('\\').join('/')),
    };
  };
}
