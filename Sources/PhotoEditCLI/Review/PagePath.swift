import Store

/// What the review command does with paths beyond the store's path arithmetic (`Path`): the
/// page's stem, its folder with links resolved, a name as the page links it.
enum PagePath {
  /// `name` without its extension: `review.html` is `review`, `.html` stays `.html`.
  static func stem(_ name: String) -> String {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
    return String(name[..<dot])
  }

  /// An absolute path with `.` and `..` taken out as written, then every link resolved in the
  /// part of it that exists (what is past that is kept as written).
  static func resolved(_ path: String) -> String {
    let names = Path.components(Path.normalized(path))
    // The longest part that exists, resolved; the rest appended.
    for kept in stride(from: names.count, through: 0, by: -1) {
      guard let real = PhotoFolder.realPath("/" + names[..<kept].joined(separator: "/")) else { continue }
      return names[kept...].reduce(real) { Path.join($0, String($1)) }
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
