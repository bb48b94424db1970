import CCrypto
import PhotoCore

/// SHA-256 through libcrypto's EVP interface (the only file that names OpenSSL).
package enum SHA256 {
  /// The lowercase hexadecimal SHA-256 of `bytes`.
  ///
  /// - Complexity: O(n).
  package static func hex(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = bytes.withUnsafeBytes { input in
      digest.withUnsafeMutableBufferPointer { out in
        EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha256(), nil)
      }
    }
    precondition(ok == 1 && length == 32, "libcrypto's SHA-256 failed")
    let hexDigits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(64)
    for byte in digest[0..<32] {
      text.append(hexDigits[Int(byte >> 4)])
      text.append(hexDigits[Int(byte & 15)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}

extension SHA256 {
  /// True for 64 lowercase hexadecimal digits, the form `hex` writes.
  package static func isHex(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}

/// A SHA-256 as photoedit stores and compares it: 64 lowercase hexadecimal digits. It is made
/// only by hashing bytes or from text of exactly that form (a sidecar's, a journal's, a
/// corrections file's), so a value of this type always holds one.
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
  /// The 64 lowercase hexadecimal digits.
  public let hex: String

  /// The SHA-256 of `bytes`.
  ///
  /// - Complexity: O(n).
  public init(of bytes: [UInt8]) { hex = SHA256.hex(bytes) }

  /// nil unless `hex` is 64 lowercase hexadecimal digits.
  public init?(hex: String) {
    guard SHA256.isHex(hex) else { return nil }
    self.hex = hex
  }

  /// From a JSON value: a string of 64 lowercase hexadecimal digits, else nil.
  package init?(_ value: JSONValue?) {
    guard let text = value?.string, let digest = Self(hex: text) else { return nil }
    self = digest
  }

  public var description: String { hex }
  package var json: JSONValue { .string(hex) }
}
