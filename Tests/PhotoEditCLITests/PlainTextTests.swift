import Foundation
import Store
import Testing

@testable import PhotoEditCLI

/// The command line's text and paths without Foundation (it starts faster without it): each
/// helper gives what Foundation gave where the command line used it.
@Suite struct PlainTextTests {
  @Test func numbersAreFormattedAsPrintfFormatsThem() {
    for v in [0.0, 1.5, 2.0005, 123.456789, -0.04, 1e-7, 12345678.9] {
      #expect(cFormat("%.3f", v) == String(format: "%.3f", v))
      #expect(cFormat("%.1f", v) == String(format: "%.1f", v))
      for digits in 1...17 { #expect(cFormat("%.\(digits)g", v) == String(format: "%.\(digits)g", v)) }
    }
    #expect(cFormat("%d:%02d", 7, 5) == "7:05")
    #expect(ValueText.percent(0.033) == "3.3")
  }

  @Test func aFilesTimeReadsAsUTC() {
    #expect(FileResult.date(0) == "1970-01-01 00:00:00 UTC")
    #expect(FileResult.date(1_796_637_291) == "2026-12-07 09:54:51 UTC")
    #expect(FileResult.date(-1) == "1969-12-31 23:59:59 UTC")
    // A time anyone can set on a file, outside the years 0 to 9999.
    #expect(FileResult.date(Int.max) == "\(Int.max) s from 1970-01-01 00:00:00 UTC")
  }

  @Test func pagePathsAreAbsoluteAndResolvedAsFoundationDid() throws {
    let folder = try TemporaryFolder()
    let real = folder.path("real")
    try FileManager.default.createDirectory(atPath: real + "/inner", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: real)
    #expect(Path.anchored("a//b/") == FileManager.default.currentDirectoryPath + "/a/b")
    #expect(Path.anchored("/x//y/") == "/x/y")
    #expect(Path.parent("/x/y.html") == "/x" && Path.parent("/y.html") == "/")
    #expect(Path.lastName("/x/y.html") == "y.html")
    #expect(PagePath.stem("review.v2.html") == "review.v2" && PagePath.stem(".html") == ".html")
    for path in [folder.path("link/inner"), folder.path("link/inner/../inner/./"), folder.path("real/inner")]
    {
      let foundation = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
      #expect(PagePath.resolved(Path.anchored(path)) == foundation, "\(path)")
    }
    #expect(PagePath.resolved(folder.path("link/inner")) == PagePath.resolved(real + "/inner"))
    // Where the path goes on past what exists, the links in what exists are resolved still
    // (Foundation resolved none: a page under a link to a reviewed folder was not refused).
    let deeper = PagePath.resolved(folder.path("link/missing/deeper"))
    #expect(deeper.hasSuffix("/real/missing/deeper") && deeper == PagePath.resolved(real) + "/missing/deeper")
    for name in ["review_files", "my review_files", "ré#v?i%e;w_files", "a+b=c@d:e_files"] {
      #expect(
        PagePath.percentEncoded(name) == name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed),
        "\(name)")
    }
  }
}
