import Recipe
import Store

/// `--shard K/N`: the K-th of N disjoint parts of a command's photos, so that N tasks (on one
/// machine or many) can share one list.
///
/// A photo's part is chosen from its name alone (`PhotoFolder.shard(of:count:)`): the path
/// relative to the folder given to `-r`, else the path as given on the command line or on
/// standard input. The same list gives every task the same parts whatever the machine, the
/// folder it is mounted at or the order of the list, and a photo added later moves no other.
struct Shard: Sendable, Equatable {
  /// The part this task does, from 1.
  var index: Int
  /// How many parts there are.
  var count: Int

  init(index: Int, count: Int) {
    precondition(count > 0 && (1...count).contains(index), "a shard is K/N with 1 <= K <= N")
    (self.index, self.count) = (index, count)
  }

  /// `K/N` with 1 <= K <= N, both written in decimal digits.
  static func parse(_ text: String, command: String) throws(UsageError) -> Shard {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let k = number(parts[0]), let n = number(parts[1]), n >= 1 else {
      throw UsageError(
        "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '\(text)'", command: command)
    }
    if k == 0 {
      throw UsageError(
        "--shard \(text): shards count from 1 (add 1 to an index that counts from 0, such as Kubernetes' JOB_COMPLETION_INDEX)",
        command: command)
    }
    if k > n {
      throw UsageError("--shard \(text): there are only \(n) shards, numbered 1 to \(n)", command: command)
    }
    return Shard(index: k, count: n)
  }

  /// A whole number written in at most 9 decimal digits (no sign, no spaces).
  private static func number(_ text: Substring) -> Int? {
    guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return nil
    }
    return Int(text)
  }

  /// True when this part holds the entry.
  func contains(_ entry: PhotoFolder.Entry) -> Bool {
    PhotoFolder.shard(of: entry.shardName, count: count) == index
  }

  var description: String { "\(index)/\(count)" }
}
