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

let package = Package(
  name: "photoedit",
  products: [
    .executable(name: "photoedit", targets: ["photoedit"])
  ],
  targets: [
    // Pure Swift pixels: the Image buffer, filters, face detection. No Foundation, no C.
    .target(name: "PhotoCore"),

    // C libraries from Debian. Their C names appear only in Codecs and Recipe's one file each.
    .systemLibrary(
      name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // Our own small C target around libpng's classic API: setjmp/longjmp stay inside C.
    .target(
      name: "CPNGShim",
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]),

    // And around libjpeg's scanline API, to decode a JPEG a band of rows at a time.
    .target(name: "CJPEGShim", linkerSettings: [.linkedLibrary("jpeg")]),

    .target(name: "Codecs", dependencies: ["PhotoCore", "CTurboJPEG", "CPNGShim", "CJPEGShim"]),
    .target(name: "Recipe", dependencies: ["PhotoCore", "Codecs", "CCrypto"]),
    .target(name: "PhotoEditCLI", dependencies: ["PhotoCore", "Codecs", "Recipe"]),
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

    .testTarget(name: "PhotoCoreTests", dependencies: ["PhotoCore"]),
    .testTarget(name: "CodecsTests", dependencies: ["Codecs", "PhotoCore"]),
    // Detection against OpenCV's reference boxes needs real decoded photos.
    .testTarget(name: "FaceDetectionTests", dependencies: ["PhotoCore", "Codecs"]),
    .testTarget(name: "RecipeTests", dependencies: ["Recipe", "Codecs", "PhotoCore"]),
    .testTarget(name: "PhotoEditCLITests", dependencies: ["PhotoEditCLI", "photoedit"]),
    // Against onnxruntime's outputs (Tests/CenterFaceTests/reference.py) on decoded fixtures.
    .testTarget(name: "CenterFaceTests", dependencies: ["CenterFace", "PhotoCore", "Codecs"]),
  ]
)
