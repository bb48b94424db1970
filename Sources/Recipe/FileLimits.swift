/// How large the files photoedit reads may be, checked before anything is allocated.
public enum FileLimits {
  /// A sidecar, a recipe file or a cascade: 64 MiB by default (`--max-file-size`).
  public static let defaultDataFileBytes = 64 << 20
  /// A journal is a few hundred bytes; one larger than this is not photoedit's.
  package static let journalBytes = 1 << 20
  /// A photo file (an original or a render): beyond any photo the memory budget lets decode.
  package static let photoBytes = 4 << 30
}
