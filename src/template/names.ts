/** Template names as FreeMarker's default TemplateNameFormat resolves them (relative to the including template). */

export function resolveTemplateName(baseName: string, name: string): string {
  if (name.startsWith('/')) return normalize(name.slice(1));
  const slash = baseName.lastIndexOf('/');
  const dir = slash >= 0 ? baseName.slice(0, slash + 1) : '';
  return normalize(dir + name);
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '.' || seg === '') continue;
    if (seg === '..') {
      if (out.length === 0)
        throw new Error(`Malformed template name: the ".." goes above the root: ${JSON.stringify(path)}`);
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}
