/**
 * The content type of a file, from its content first and its name second: a recognised
 * signature (PDF, PNG, ZIP, Office documents …, via file-type) wins over the extension, except
 * for container formats (ZIP, XML, OLE) whose extension names the more precise type (`.jar`,
 * `.svg`, `.msg`). Without a signature the extension decides (mime-types); without either,
 * content with no NUL byte in its first 8 KB is text/plain, anything else
 * application/octet-stream.
 */

const CONTAINERS = new Set(['application/zip', 'application/xml', 'application/x-cfb', 'text/xml']);

export async function detectContentType(name: string, content: Uint8Array): Promise<string> {
  // Both libraries load with the first file stored, not when the process starts.
  const [{ fileTypeFromBuffer }, { lookup }] = await Promise.all([import('file-type'), import('mime-types')]);
  const byName = lookup(name) || undefined;
  const sniffed = content.length > 0 ? (await fileTypeFromBuffer(content))?.mime : undefined;
  if (sniffed && !(CONTAINERS.has(sniffed) && byName)) return sniffed;
  if (byName) return byName;
  return looksLikeText(content) ? 'text/plain' : 'application/octet-stream';
}

/** True for content types whose bytes are characters in a charset. */
export function isTextType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type.endsWith('+xml') ||
    type.endsWith('+json') ||
    [
      'application/json',
      'application/xml',
      'application/javascript',
      'application/x-www-form-urlencoded',
    ].includes(type)
  );
}

function looksLikeText(content: Uint8Array): boolean {
  const end = Math.min(content.length, 8192);
  for (let i = 0; i < end; i++) if (content[i] === 0) return false;
  return true;
}

const TOKEN =
  /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"]*"|[A-Za-z0-9!#$&^_.+-]+))*$/;

/** A well-formed media type (`type/subtype` with optional parameters), lower-cased type part. */
export function normaliseContentType(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length > 255 || !TOKEN.test(trimmed)) return undefined;
  const [type, ...params] = trimmed.split(';');
  return [type!.trim().toLowerCase(), ...params.map((p) => p.trim())].join('; ');
}
