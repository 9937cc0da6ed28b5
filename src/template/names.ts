/** Template names as FreeMarker's default TemplateNameFormat resolves them (relative to the including template). */

/**
 * A name that leaves the template root ("../x.ftl" from the root). FreeMarker's TemplateCache (with
 * the 2.3.0 name format) treats it as a missing template, giving this reason.
 */
export class RootLeavingName extends Error {
  constructor(readonly rootBased: string) {
    super('Backing out from the root directory is not allowed.');
  }
}

/** TemplateNameFormat.toRootBasedName: `name` relative to the directory of `baseName` ("/x" = root). */
export function rootBasedName(baseName: string, name: string): string {
  if (name.startsWith('/')) return name.slice(1);
  const slash = baseName.lastIndexOf('/');
  return (slash >= 0 ? baseName.slice(0, slash + 1) : '') + name;
}

/** The full (root-based, normalized) name; throws RootLeavingName for names above the root. */
export function resolveTemplateName(baseName: string, name: string): string {
  const rootBased = rootBasedName(baseName, name);
  const out: string[] = [];
  for (const seg of rootBased.split('/')) {
    if (seg === '.' || seg === '') continue;
    if (seg === '..') {
      if (out.length === 0) throw new RootLeavingName(rootBased);
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}
