/// "Did you mean": the known word closest to a mistyped one, by edit distance.
enum Suggestion {
  /// The word of `candidates` nearest to `word` when it is near enough to be a slip (at most one
  /// edit in four letters, and at most 3), or nil. Of equally near words, the first.
  static func closest(to word: String, among candidates: [String]) -> String? {
    let limit = min(3, max(1, word.count / 4))
    var best: (word: String, distance: Int)? = nil
    for candidate in candidates where candidate != word {
      let d = distance(word, candidate)
      if d <= limit, d < best?.distance ?? .max { best = (candidate, d) }
    }
    return best?.word
  }

  /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
  /// two neighbouring letters each count one (`--recusrive` is one swap from `--recursive`).
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased())
    let b = Array(b.lowercased())
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
        }
      }
    }
    return d[a.count][b.count]
  }
}
