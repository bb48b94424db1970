import CCrypto

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
