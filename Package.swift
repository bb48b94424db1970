// swift-tools-version:6.0
import PackageDescription

// CenterFace's kernels are built three times: for baseline x86-64, for AVX2 with FMA and for
// AVX-512 (picked at run time from CPUID). On other processors the second build is plain code that is never picked.
#if arch(x86_64)
  let avx2Flags: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-mavx2", "-Xcc", "-mfma"])]
  let avx512Flags: [SwiftSetting] = [
    .unsafeFlags(["-Xcc", "-mavx2", "-Xcc", "-mfma", "-Xcc", "-mavx512f", "-Xcc", "-mavx512vl"])
  ]
#else
  let avx2Flags: [SwiftSetting] = []
  let avx512Flags: [SwiftSetting] = []
#endif

let noMathErrno: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-fno-math-errno"])]

let package = Package(
  name: "photoedit",
  products: [
    .executable(name: "photoedit", targets: ["photoedit"])
  ],
  targets: [
    // Pure Swift pixels: the Image buffer, filters, face detection. No Foundation, no C, with
    // one exception: the tiny CCPUID target (two functions, no library), to pick the Haar
    // kernels' build at run time.
    .target(
      name: "PhotoCore", dependencies: ["HaarKernels", "HaarKernelsAVX2", "HaarKernelsAVX512", "CCPUID"]),
    // The Haar stump kernels, pure Swift, built three times like CenterFace's (one source file
    // shared through symbolic links; the AVX-512 build calls the AVX2 one for sparse lanes).
    // Without math errno, a vector's square root is one instruction (the same correctly rounded
    // result).
    .target(name: "HaarKernels", swiftSettings: noMathErrno),
    .target(
      name: "HaarKernelsAVX2", dependencies: ["HaarKernels"],
      swiftSettings: [.define("HAAR_AVX2")] + noMathErrno + avx2Flags),
    .target(
      name: "HaarKernelsAVX512", dependencies: ["HaarKernels", "HaarKernelsAVX2"],
      swiftSettings: [.define("HAAR_AVX512")] + noMathErrno + avx512Flags),

    // C libraries from Debian. Their C names appear only in Codecs (each format's folder;
    // libwebp's in WebP/WebPLibrary.swift alone, libheif's in HEIF/HEIFLibrary.swift and its
    // decoder-plugin interface in HEIF/HEIFDecodeGuard.swift, libtiff's in TIFF/TIFFLibrary.swift)
    // and in Recipe's SHA256.swift (libcrypto).
    .systemLibrary(
      name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
    .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
    .systemLibrary(name: "CHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
    .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // Our own small C target around libpng's classic API: setjmp/longjmp stay inside C.
    .target(
      name: "CPNGShim",
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]),

    // And around libjpeg's scanline API, to decode a JPEG a band of rows at a time.
    .target(name: "CJPEGShim", linkerSettings: [.linkedLibrary("jpeg")]),

    .target(
      name: "Codecs",
      dependencies: ["PhotoCore", "CTurboJPEG", "CPNGShim", "CJPEGShim", "CWebP", "CHEIF", "CTIFF"]),
    // The recipe: the sidecar's format and its migrations, the review's corrections file, the
    // errors they name. Bytes in, values out: no file I/O.
    .target(name: "Recipe", dependencies: ["PhotoCore", "Codecs", "CCrypto"]),
    // The store: opened photos, the journal, recovery, detector loading, and in FileSystem/ the
    // one door to the operating system (every file-system call of the product).
    .target(name: "Store", dependencies: ["PhotoCore", "Codecs", "CenterFace", "Recipe"]),
    .target(name: "PhotoEditCLI", dependencies: ["PhotoCore", "Codecs", "Recipe", "Store"]),
    .executableTarget(name: "photoedit", dependencies: ["PhotoEditCLI"]),

    // CenterFace, a small face-detection CNN, run in pure Swift from its ONNX file. The kernels'
    // one source file is shared by both builds through a symbolic link.
    .target(name: "CCPUID"),
    .target(name: "CenterFaceKernels"),
    .target(
      name: "CenterFaceKernelsAVX2", dependencies: ["CenterFaceKernels"],
      swiftSettings: [.define("CENTERFACE_AVX2")] + avx2Flags),
    .target(
      name: "CenterFaceKernelsAVX512", dependencies: ["CenterFaceKernels"],
      swiftSettings: [.define("CENTERFACE_AVX512")] + avx512Flags),
    .target(
      name: "CenterFace",
      dependencies: [
        "PhotoCore", "CenterFaceKernels", "CenterFaceKernelsAVX2", "CenterFaceKernelsAVX512", "CCPUID",
      ]),
    // Runs the engine on photos: benchmarks and recall measurements.
    .executableTarget(name: "centerface-detect", dependencies: ["CenterFace", "Codecs", "PhotoCore"]),

    // What every test target shares: fixtures, temporary folders, deterministic test images.
    .target(name: "TestSupport", dependencies: ["PhotoCore"], path: "Tests/TestSupport"),
    .testTarget(name: "PhotoCoreTests", dependencies: ["PhotoCore", "TestSupport"]),
    .testTarget(name: "CodecsTests", dependencies: ["Codecs", "PhotoCore", "TestSupport", "CJPEGShim"]),
    // Detection against OpenCV's reference boxes needs real decoded photos.
    .testTarget(name: "FaceDetectionTests", dependencies: ["PhotoCore", "Codecs", "TestSupport"]),
    .testTarget(name: "StoreTests", dependencies: ["Store", "Recipe", "Codecs", "PhotoCore", "TestSupport"]),
    .testTarget(name: "PhotoEditCLITests", dependencies: ["PhotoEditCLI", "photoedit", "TestSupport"]),
    // Against onnxruntime's outputs (Tests/CenterFaceTests/reference.py) on decoded fixtures.
    .testTarget(
      name: "CenterFaceTests", dependencies: ["CenterFace", "PhotoCore", "Codecs", "TestSupport"],
      exclude: ["reference.py", "recall.py", "reference.json"]),
  ]
)

// libFuzzer targets, one per parser (Tests/Fuzz/, run by `make fuzz`). They exist only when
// PHOTOEDIT_FUZZ is set: they reach internal APIs with @testable import, so they build only with
// -enable-testing, and with the fuzzer sanitizer, which provides their main.
if Context.environment["PHOTOEDIT_FUZZ"] != nil {
  package.targets += [
    .target(
      name: "FuzzSupport", dependencies: ["CPNGShim", "Codecs", "PhotoCore"], path: "Tests/Fuzz/FuzzSupport"),
    .executableTarget(name: "FuzzJPEG", dependencies: ["Codecs", "CJPEGShim"], path: "Tests/Fuzz/FuzzJPEG"),
    .executableTarget(name: "FuzzPNG", dependencies: ["Codecs", "FuzzSupport"], path: "Tests/Fuzz/FuzzPNG"),
    .executableTarget(
      name: "FuzzMetadata", dependencies: ["Codecs", "FuzzSupport"], path: "Tests/Fuzz/FuzzMetadata"),
    .executableTarget(name: "FuzzCascade", dependencies: ["PhotoCore"], path: "Tests/Fuzz/FuzzCascade"),
    .executableTarget(name: "FuzzStrokes", dependencies: ["PhotoCore"], path: "Tests/Fuzz/FuzzStrokes"),
    .executableTarget(
      name: "FuzzSidecar", dependencies: ["Store", "Recipe", "PhotoCore"], path: "Tests/Fuzz/FuzzSidecar"),
    .executableTarget(
      name: "FuzzSplice", dependencies: ["Codecs", "PhotoCore"], path: "Tests/Fuzz/FuzzSplice"),
    .executableTarget(name: "FuzzWebP", dependencies: ["FuzzSupport"], path: "Tests/Fuzz/FuzzWebP"),
    .executableTarget(name: "FuzzHEIF", dependencies: ["FuzzSupport"], path: "Tests/Fuzz/FuzzHEIF"),
    .executableTarget(name: "FuzzTIFF", dependencies: ["FuzzSupport"], path: "Tests/Fuzz/FuzzTIFF"),
    .executableTarget(
      name: "FuzzModel", dependencies: ["CenterFace", "PhotoCore"], path: "Tests/Fuzz/FuzzModel"),
  ]
}
