import CHEIF
import Glibc
import Synchronization

/// libheif decoder plugins of photoedit's own, one for HEVC and one for AV1, registered above
/// libheif's built-in ones (libde265; dav1d or aom): each reads the size the coded data declares
/// (`CodedPictureDemand`, from the very bytes libheif hands the decoder), refuses data whose
/// pictures need more memory than the decode in progress was allowed, and passes everything
/// else to the built-in decoder unchanged, so pixels are the built-in decoder's.
///
/// The allowance is held by `decoding(allowance:_:)` around each `heif_decode_image`, for the
/// calling thread: libheif decodes every tile of a grid on that thread (the context's decoding
/// threads are set to 0), one after another, and the plugin looks the allowance up when libheif
/// creates a decoder. A decode on a thread with no allowance is allowed nothing.
enum HEIFDecodeGuard {
  /// One decode's allowance and what its decoders hold; used by its own thread only.
  private final class Scope: @unchecked Sendable {
    let allowed: Int
    var reserved = 0
    init(allowed: Int) { self.allowed = allowed }
  }
  private static let scopes = Mutex<[UInt: Scope]>([:])

  private static var thread: UInt { UInt(pthread_self()) }

  /// Runs `body` (one `heif_decode_image` on this thread) with `bytes` of the decoders'
  /// picture memory allowed.
  static func decoding<R>(allowance bytes: Int, _ body: () throws(CodecError) -> R) throws(CodecError) -> R {
    _ = registered
    let id = thread
    scopes.withLock { $0[id] = Scope(allowed: bytes) }
    defer { _ = scopes.withLock { $0.removeValue(forKey: id) } }
    return try body()
  }

  /// The message libheif passes on when a guard refuses (a C string: libheif keeps the pointer).
  static let refusal: StaticString = "its coded pictures are larger than its header says"
  private static let unreadable: StaticString = "its coded data's picture size cannot be read"

  /// Registers the guards, once per process, before the first decode. A format for which libheif
  /// lists no built-in decoder gets none: libheif has nothing to decode it with.
  private static let registered: Void = {
    for (owner, table) in [(hevc, hevcTable), (av1, av1Table)] where owner.real != nil {
      let plugin = UnsafeMutablePointer<heif_decoder_plugin>.allocate(capacity: 1)
      plugin.initialize(to: table)
      heif_register_decoder_plugin(plugin)
    }
  }()

  /// One format's guard: the built-in plugin it forwards to and how it reads the data's demand.
  /// (Immutable after init; the plugin table is libheif's, never written.)
  private final class Guard: @unchecked Sendable {
    let real: UnsafePointer<heif_decoder_plugin>?
    let demand: @Sendable (UnsafeRawBufferPointer) -> CodedPictureDemand?

    init(
      _ format: heif_compression_format,
      demand: @escaping @Sendable (UnsafeRawBufferPointer) -> CodedPictureDemand?
    ) {
      self.demand = demand
      // libheif's descriptors of its decoders are its plugin tables (heif.cc casts one to the
      // other), the highest priority first. Taken before the guards are registered.
      var descriptors = [OpaquePointer?](repeating: nil, count: 8)
      let count = descriptors.withUnsafeMutableBufferPointer {
        heif_get_decoder_descriptors(format, $0.baseAddress, Int32($0.count))
      }
      real = count > 0 ? descriptors[0].map { UnsafePointer<heif_decoder_plugin>($0) } : nil
    }
  }

  /// A decoder in progress: the built-in decoder's state and what this one reserved.
  private final class Decoder {
    let owner: Guard
    /// The allowance of the decode that made it (libheif creates a decoder on the decoding
    /// thread).
    let scope: Scope?
    var inner: UnsafeMutableRawPointer?
    var reserved = 0
    init(_ owner: Guard, _ scope: Scope?) { (self.owner, self.scope) = (owner, scope) }
  }

  private static func cString(_ string: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(string.utf8Start).assumingMemoryBound(to: CChar.self)
  }

  private static func failure(_ code: heif_error_code, _ subcode: heif_suberror_code, _ message: StaticString)
    -> heif_error
  {
    heif_error(code: code, subcode: subcode, message: cString(message))
  }

  private static var ok: heif_error {
    heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: cString("Success"))
  }

  /// Reserves `bytes` of `scope`'s allowance, or refuses.
  private static func reserve(_ bytes: Int, in scope: Scope?) -> Bool {
    guard let scope, scope.reserved <= scope.allowed, bytes <= scope.allowed - scope.reserved else {
      return false
    }
    scope.reserved += bytes
    return true
  }

  private static func decoder(_ raw: UnsafeMutableRawPointer?) -> Decoder {
    Unmanaged<Decoder>.fromOpaque(raw!).takeUnretainedValue()
  }

  private static let hevc = Guard(heif_compression_HEVC, demand: CodedPictureDemand.hevc)
  private static let av1 = Guard(heif_compression_AV1, demand: CodedPictureDemand.av1)

  private static var hevcTable: heif_decoder_plugin {
    table(
      name: { HEIFDecodeGuard.cString("photoedit size guard (HEVC)") }, id: "photoedit-guard-hevc",
      supports: { $0 == heif_compression_HEVC ? 1000 : 0 },
      new: { HEIFDecodeGuard.newDecoder(HEIFDecodeGuard.hevc, $0) })
  }

  private static var av1Table: heif_decoder_plugin {
    table(
      name: { HEIFDecodeGuard.cString("photoedit size guard (AV1)") }, id: "photoedit-guard-av1",
      supports: { $0 == heif_compression_AV1 ? 1000 : 0 },
      new: { HEIFDecodeGuard.newDecoder(HEIFDecodeGuard.av1, $0) })
  }

  /// A plugin table (API version 3) whose decoder functions forward through `Decoder`.
  private static func table(
    name: @escaping @convention(c) () -> UnsafePointer<CChar>?, id: StaticString,
    supports: @escaping @convention(c) (heif_compression_format) -> Int32,
    new: @escaping @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> heif_error
  ) -> heif_decoder_plugin {
    var table = heif_decoder_plugin()
    table.plugin_api_version = 3
    table.id_name = cString(id)
    table.get_plugin_name = name
    table.init_plugin = nil
    table.deinit_plugin = nil
    table.does_support_format = supports
    table.new_decoder = new
    table.free_decoder = { raw in
      guard let raw else { return }
      let decoder = Unmanaged<Decoder>.fromOpaque(raw).takeRetainedValue()
      if let inner = decoder.inner { decoder.owner.real!.pointee.free_decoder(inner) }
      decoder.scope?.reserved -= decoder.reserved
    }
    table.push_data = { raw, data, size in
      let decoder = HEIFDecodeGuard.decoder(raw)
      guard let data else { return decoder.owner.real!.pointee.push_data(decoder.inner, data, size) }
      guard let demand = decoder.owner.demand(UnsafeRawBufferPointer(start: data, count: size)) else {
        return HEIFDecodeGuard.failure(
          heif_error_Decoder_plugin_error, heif_suberror_Unspecified, HEIFDecodeGuard.unreadable)
      }
      guard HEIFDecodeGuard.reserve(demand.planeBytes, in: decoder.scope) else {
        return HEIFDecodeGuard.failure(
          heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded, HEIFDecodeGuard.refusal)
      }
      decoder.reserved += demand.planeBytes
      return decoder.owner.real!.pointee.push_data(decoder.inner, data, size)
    }
    table.decode_image = { raw, image in
      let decoder = HEIFDecodeGuard.decoder(raw)
      return decoder.owner.real!.pointee.decode_image(decoder.inner, image)
    }
    table.set_strict_decoding = { raw, flag in
      let decoder = HEIFDecodeGuard.decoder(raw)
      let real = decoder.owner.real!.pointee
      if real.plugin_api_version >= 2, let strict = real.set_strict_decoding { strict(decoder.inner, flag) }
    }
    return table
  }

  private static func newDecoder(_ owner: Guard, _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?)
    -> heif_error
  {
    guard let out, let real = owner.real else {
      return failure(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, unreadable)
    }
    let decoder = Decoder(owner, scopes.withLock { $0[thread] })
    let error = real.pointee.new_decoder(&decoder.inner)
    guard error.code == heif_error_Ok else { return error }
    out.pointee = Unmanaged.passRetained(decoder).toOpaque()
    return ok
  }
}
