/**
 * The bounds of the file service. Every one is a hard limit: past it the operation is refused
 * with an error naming the limit, never truncated. Defaults are documented in docs/files.md.
 */
export interface FileLimits {
  /** Largest content of one file, in bytes (create, save, append, each unzipped entry). */
  maxFileBytes: number;
  /** Longest file name, in characters. */
  maxNameLength: number;
  /** Largest serialised `metadata` object of a descriptor, in bytes of JSON. */
  maxMetadataBytes: number;
  /** unzip_file and the xlsx check of R_read_excel_cells: most entries in an archive. */
  maxZipEntries: number;
  /** Most bytes all the entries of an archive may inflate to, counted while inflating. */
  maxZipUncompressedBytes: number;
  /**
   * Highest inflated/compressed ratio of an entry, checked once the entry has inflated past
   * `zipRatioGraceBytes` (small, very repetitive files stay allowed).
   */
  maxZipRatio: number;
  zipRatioGraceBytes: number;
  /** zip_file: most files in one archive. */
  maxZipInputs: number;
  /** file_replace with REGEX or IGNORE_CASE: longest pattern, in characters. */
  maxPatternLength: number;
  /** file_replace with REGEX or IGNORE_CASE: wall-clock bound of one replacement run, in ms. */
  regexTimeoutMs: number;
  /** R_read_excel_cells: most cells one call may request. */
  maxExcelCells: number;
}

export const DEFAULT_FILE_LIMITS: Readonly<FileLimits> = Object.freeze({
  maxFileBytes: 64 * 1024 * 1024,
  maxNameLength: 255,
  maxMetadataBytes: 64 * 1024,
  maxZipEntries: 1000,
  maxZipUncompressedBytes: 256 * 1024 * 1024,
  maxZipRatio: 200,
  zipRatioGraceBytes: 1024 * 1024,
  maxZipInputs: 1000,
  maxPatternLength: 10_000,
  regexTimeoutMs: 5_000,
  maxExcelCells: 10_000,
});

export function fileLimits(overrides: Partial<FileLimits> = {}): FileLimits {
  return { ...DEFAULT_FILE_LIMITS, ...overrides };
}
