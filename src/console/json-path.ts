/**
 * Where a path of a JSON document (`steps[2].lane`) is in its text, so the console can show a
 * validation error of the server at its place: `locate(text, path)` gives the line and column
 * (1-based) of the value at the path, or of its deepest part that exists (a missing field: the
 * object that lacks it). Bounded: texts past MAX_CHARS are not scanned.
 */
export type PathPart = string | number;

const MAX_CHARS = 4 * 1024 * 1024;

/** `steps[2].input.total` → ['steps', 2, 'input', 'total']; undefined when it is not a path. */
export function parsePath(text: string): PathPart[] | undefined {
  const parts: PathPart[] = [];
  const pattern = /\.?([^.[\]]+)|\[(\d{1,9})\]/gy;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = pattern.exec(text)) !== null) {
    parts.push(match[2] !== undefined ? Number(match[2]) : match[1]!);
    end = pattern.lastIndex;
    if (end === text.length) break;
  }
  return end === text.length ? parts : undefined;
}

/**
 * A server message `process definition.steps[1].lane: must be …` as its path and its text; the
 * path undefined when the message names none.
 */
export function splitDefinitionError(message: string): {
  path?: PathPart[];
  pathText?: string;
  text: string;
} {
  const match = /^process definition((?:\.[^.[\]:\s]+|\[\d+\])*): ([\s\S]*)$/.exec(message);
  if (!match) return { text: message };
  const pathText = match[1]!.replace(/^\./, '');
  const path = parsePath(pathText);
  return path ? { path, pathText: pathText || '(the definition)', text: match[2]! } : { text: message };
}

/** Line and column (1-based) of the value at `path` in the JSON text (or of its deepest existing part). */
export function locate(text: string, path: PathPart[]): { line: number; column: number } | undefined {
  if (text.length > MAX_CHARS) return undefined;
  const scanner = new Scanner(text);
  let found: number | undefined;
  try {
    scanner.skipSpace();
    found = scanner.find(path, 0);
  } catch {
    found = scanner.best;
  }
  if (found === undefined) return undefined;
  return position(text, found);
}

export function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 10) {
      line += 1;
      start = i + 1;
    }
  return { line, column: offset - start + 1 };
}

class Scanner {
  i = 0;
  /** The offset of the deepest part of the path seen so far. */
  best: number | undefined;
  constructor(private readonly text: string) {}

  skipSpace(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i]!)) this.i += 1;
  }

  /** At the start of a value for path[depth…]: the offset of the target, or undefined (value skipped). */
  find(path: PathPart[], depth: number): number | undefined {
    const start = this.i;
    this.best = start;
    if (depth === path.length) return start;
    const want = path[depth];
    const c = this.text[this.i];
    if (c === '{') {
      this.i += 1;
      this.skipSpace();
      if (this.text[this.i] === '}') return this.close(start);
      for (;;) {
        this.skipSpace();
        const keyAt = this.i;
        const key = this.string();
        this.skipSpace();
        this.expect(':');
        this.skipSpace();
        if (key === want) {
          const hit = this.find(path, depth + 1);
          if (hit !== undefined) return hit;
          return depth + 1 === path.length ? keyAt : (this.best ?? keyAt);
        }
        this.skip();
        this.skipSpace();
        if (this.text[this.i] === ',') this.i += 1;
        else if (this.text[this.i] === '}') return this.close(start);
        else throw new Error('bad object');
      }
    }
    if (c === '[') {
      this.i += 1;
      this.skipSpace();
      if (this.text[this.i] === ']') return this.close(start);
      for (let index = 0; ; index++) {
        this.skipSpace();
        if (index === want) return this.find(path, depth + 1) ?? this.best;
        this.skip();
        this.skipSpace();
        if (this.text[this.i] === ',') this.i += 1;
        else if (this.text[this.i] === ']') return this.close(start);
        else throw new Error('bad array');
      }
    }
    // A scalar where the path goes deeper: the scalar is the deepest part.
    return start;
  }

  /** The container ended without the wanted part: the container is the deepest part. */
  private close(start: number): number {
    this.i += 1;
    return start;
  }

  private expect(c: string): void {
    if (this.text[this.i] !== c) throw new Error(`expected ${c}`);
    this.i += 1;
  }

  private string(): string {
    const start = this.i;
    this.expect('"');
    while (this.i < this.text.length && this.text[this.i] !== '"')
      this.i += this.text[this.i] === '\\' ? 2 : 1;
    this.expect('"');
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  /** Skips one value. */
  private skip(): void {
    const c = this.text[this.i];
    if (c === '"') {
      this.string();
      return;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      do {
        const d = this.text[this.i];
        if (d === '"') {
          this.string();
          continue;
        }
        if (d === '{' || d === '[') depth += 1;
        else if (d === '}' || d === ']') depth -= 1;
        this.i += 1;
      } while (depth > 0 && this.i < this.text.length);
      return;
    }
    while (this.i < this.text.length && !/[,}\]\s]/.test(this.text[this.i]!)) this.i += 1;
  }
}
