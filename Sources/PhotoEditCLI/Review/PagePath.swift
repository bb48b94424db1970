import Store

/// Paths as the review command names them in messages and compares them: absolute against the
/// working folder, written with single slashes and no trailing one.
enum PagePath {
  /// `path` made absolute against the working folder (no link or `..` resolved).
  static func absolute(_ path: String) -> String {
    let joined = path.hasPrefix("/") ? path : PhotoFolder.currentDirectory() + "/" + path
    let parts = joined.split(separator: "/", omittingEmptySubsequences: true)
    return "/" + parts.joined(separator: "/")
  }

  /// The folder an absolute path is in (`/` for `/` and its entries).
  static func parent(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }

  /// The last name of an absolute path (empty for `/`).
  static func lastName(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// `name` without its extension: `review.html` is `review`, `.html` stays `.html`.
  static func stem(_ name: String) -> String {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
    return String(name[..<dot])
  }

  /// `name` inside the folder `path`.
  static func appending(_ path: String, _ name: String) -> String {
    path == "/" ? "/" + name : path + "/" + name
  }

  /// An absolute path with `.` and `..` taken out as written, then every link resolved in the
  /// part of it that exists (what is past that is kept as written).
  static func resolved(_ path: String) -> String {
    var names: [Substring] = []
    for name in path.split(separator: "/", omittingEmptySubsequences: true) {
      if name == "." { continue }
      if name == ".." {
        _ = names.popLast()
      } else {
        names.append(name)
      }
    }
    // The longest part that exists, resolved; the rest appended.
    for kept in stride(from: names.count, through: 0, by: -1) {
      let head = "/" + names[..<kept].joined(separator: "/")
      guard let real = PhotoFolder.realPath(head) else { continue }
      return names[kept...].reduce(real) { appending($0, String($1)) }
    }
    return "/" + names.joined(separator: "/")
  }

  /// A name as a link in the page writes it: UTF-8, every byte but letters, digits and
  /// `-._~!$&'()*+,=@/` percent-encoded (`:` too, so that no name reads as a URL's scheme).
  static func percentEncoded(_ name: String) -> String {
    let allowed = Set("-._~!$&'()*+,=@/".utf8)
    var out = ""
    for b in name.utf8 {
      let isAlphanumeric =
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
      if isAlphanumeric || allowed.contains(b) {
        out.unicodeScalars.append(Unicode.Scalar(b))
      } else {
        let hex = Array("0123456789ABCDEF".utf8)
        out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
      }
    }
    return out
  }
}
