// swift-tools-version:6.0
import PackageDescription

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

    // What every test target shares: fixtures, temporary folders, deterministic test images.
    .target(name: "TestSupport", dependencies: ["PhotoCore"], path: "Tests/TestSupport"),
    .testTarget(name: "PhotoCoreTests", dependencies: ["PhotoCore", "TestSupport"]),
    .testTarget(name: "CodecsTests", dependencies: ["Codecs", "PhotoCore", "TestSupport"]),
    // Detection against OpenCV's reference boxes needs real decoded photos.
    .testTarget(name: "FaceDetectionTests", dependencies: ["PhotoCore", "Codecs", "TestSupport"]),
    .testTarget(name: "RecipeTests", dependencies: ["Recipe", "Codecs", "PhotoCore", "TestSupport"]),
    .testTarget(name: "PhotoEditCLITests", dependencies: ["PhotoEditCLI", "photoedit", "TestSupport"]),
  ]
)
