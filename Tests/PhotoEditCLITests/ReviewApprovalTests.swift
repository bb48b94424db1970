import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

/// Review states recorded in the sidecars: a page's export applied, `status` showing them and
/// whether each photo changed since, and a later page starting from them.
@Suite struct ReviewApprovalTests {
  /// An export as the page writes it, with `reviewed` entries.
  static func export(_ f: ReviewFixture, photos: [[String: Any]] = [], reviewed: [[String: Any]]) throws
    -> String
  {
    let object: [String: Any] = [
      "formatIdentifier": "org.photoedit.review-corrections", "formatVersion": 1, "folder": "photos",
      "photos": photos, "reviewed": reviewed,
    ]
    let path = f.folder.path("corrections-\(UUID().uuidString).json")
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// `status --json`'s line for each photo, by file name.
  static func status(_ f: ReviewFixture) throws -> [String: [String: Any]] {
    let r = runCLI(["status", "--json", f.photos])
    #expect(r.status == 0, "\(r.err)")
    var out: [String: [String: Any]] = [:]
    for line in r.out.split(separator: "\n") {
      let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
      out[((o["file"] as! String) as NSString).lastPathComponent] = o
    }
    return out
  }

  static func sidecar(_ f: ReviewFixture, _ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: f.path(name) + ".photoedit.json"))
    return try JSONSerialization.jsonObject(with: data) as! [String: Any]
  }

  @Test func approvalsAreRecordedShownByStatusAndStartTheNextPage() throws {
    let f = try ReviewFixture()
    let (bus, group, astronaut) = ("ultralytics-bus.jpg", "opencv-group1.jpg", "astronaut.png")
    #expect(f.review().status == 0)
    let page = PageMarkup(f.html)
    func section(_ name: String) -> String { page.sections.first { $0.name == name }!.markup }
    let busRender = try #require(PageMarkup.attribute("data-render", in: section(bus)))
    let groupRender = try #require(PageMarkup.attribute("data-render", in: section(group)))
    #expect(PageMarkup.attribute("data-render", in: section(astronaut)) == nil)
    let recordedRender = (try Self.sidecar(f, bus)["render"] as? [String: Any])?["sha256"] as? String
    #expect(recordedRender == busRender)

    // The bus approved; the group corrected (face 0 excluded) and flagged; the unedited
    // astronaut approved, which has nowhere to be recorded.
    let file = try Self.export(
      f, photos: [try CorrectionsTests.entry(f, group, exclude: [0], add: [])],
      reviewed: [
        ["photo": bus, "state": "approved", "render": busRender],
        ["photo": group, "state": "flagged", "render": groupRender],
        ["photo": astronaut, "state": "approved"],
      ])
    let before = Int64(Date().timeIntervalSince1970)
    let r = runCLI(["apply", "--corrections", file, f.photos])
    let after = Int64(Date().timeIntervalSince1970)
    #expect(r.status == 1)
    #expect(
      r.err.contains(
        "photo '\(astronaut)' is not edited (it has no sidecar), so its approved state is not recorded; skipped"
      ))
    #expect(r.err.contains("1 of 4 entries skipped (each said why above); the others were applied"))
    #expect(r.out.contains("\(bus): recorded approved ("))
    #expect(r.out.contains("\(group): changed step 1 (faceblur)"))
    #expect(FileManager.default.fileExists(atPath: f.path(astronaut) + ".photoedit.json") == false)

    // The sidecars: version 3, the state, the time of the run, the render reviewed; the group's
    // record names the corrected render, written by the same store operation.
    let busSidecar = try Self.sidecar(f, bus)
    #expect(busSidecar["formatVersion"] as? Int == 3)
    let busReview = try #require(busSidecar["review"] as? [String: Any])
    #expect(busReview["state"] as? String == "approved")
    #expect(busReview["render"] as? String == busRender)
    let time = try #require(UTCTime(iso8601: busReview["time"] as! String))
    #expect((before...after).contains(time.seconds))
    let groupSidecar = try Self.sidecar(f, group)
    let groupReview = try #require(groupSidecar["review"] as? [String: Any])
    let corrected = (groupSidecar["render"] as! [String: Any])["sha256"] as! String
    #expect(groupReview["state"] as? String == "flagged")
    #expect(corrected != groupRender && groupReview["render"] as? String == corrected)
    #expect(try f.faceblur(group).exclude == [0])

    // status shows them, current.
    var status = try Self.status(f)
    let busStatus = try #require(status[bus]?["review"] as? [String: Any])
    #expect(busStatus["state"] as? String == "approved" && busStatus["changedSince"] as? Bool == false)
    #expect(busStatus["time"] as? String == time.iso8601)
    #expect((status[group]?["review"] as? [String: Any])?["changedSince"] as? Bool == false)
    #expect(status[astronaut]?["review"] == nil)
    let human = runCLI(["status", f.path(bus)])
    #expect(human.out == "\(f.path(bus)): edited (1 operation); approved \(time.display)\n")

    // The same file again changes nothing.
    let snapshot = f.storeSnapshot()
    let again = runCLI(["apply", "--corrections", file, f.photos])
    #expect(again.status == 1)
    #expect(again.out.contains("\(bus): already recorded as approved; nothing to do"))
    #expect(again.out.contains("already has these corrections"))
    #expect(again.out.contains("\(group): step 1 (faceblur) already has these corrections; nothing to do"))
    #expect(again.out.contains("already recorded as flagged; nothing to do"))
    #expect(again.err.contains("1 of 4 entries skipped"))
    #expect(f.storeSnapshot() == snapshot)

    // An edit since: status says so, and the next page starts the bus unreviewed, saying it
    // changed since it was approved; the group starts flagged.
    #expect(runCLI(["apply", "--filter", "sepia", f.path(bus)]).status == 0)
    status = try Self.status(f)
    #expect((status[bus]?["review"] as? [String: Any])?["changedSince"] as? Bool == true)
    #expect(
      runCLI(["status", f.path(bus)]).out
        == "\(f.path(bus)): edited (2 operations); approved \(time.display), changed since review\n")
    #expect(f.review().status == 0)
    let next = PageMarkup(f.html)
    func nextSection(_ name: String) -> String { next.sections.first { $0.name == name }!.markup }
    #expect(PageMarkup.attribute("data-review", in: nextSection(bus)) == "unreviewed")
    #expect(PageMarkup.attribute("data-recorded", in: nextSection(bus)) == "approved")
    #expect(PageMarkup.attribute("data-changed-since-review", in: nextSection(bus)) == "true")
    #expect(nextSection(bus).contains("changed since approved \(time.display)"))
    #expect(PageMarkup.attribute("data-review", in: nextSection(group)) == "flagged")
    #expect(PageMarkup.attribute("data-changed-since-review", in: nextSection(group)) == nil)
    #expect(PageMarkup.attribute("data-review", in: nextSection(astronaut)) == "unreviewed")

    // The old export's approval of the bus is now stale: refused, nothing written.
    let stale = try Self.export(f, reviewed: [["photo": bus, "state": "approved", "render": busRender]])
    let staleSnapshot = f.storeSnapshot()
    let refused = runCLI(["apply", "--corrections", stale, f.photos])
    #expect(refused.status == 1)
    #expect(
      refused.err.contains(
        "photo '\(bus)' was edited since the page was made (its render is not the one reviewed), so its approved state is not recorded; review it again; skipped"
      ))
    #expect(f.storeSnapshot() == staleSnapshot)

    // Undo brings back the approved render: approved, current again.
    #expect(runCLI(["undo", f.path(bus)]).status == 0)
    #expect((try Self.status(f)[bus]?["review"] as? [String: Any])?["changedSince"] as? Bool == false)

    // Returning a photo to unreviewed takes its record away; the sidecar is version 2 again.
    let withdraw = try Self.export(
      f, reviewed: [["photo": group, "state": "unreviewed", "render": corrected]])
    #expect(runCLI(["apply", "--corrections", withdraw, f.photos]).status == 0)
    let plain = try Self.sidecar(f, group)
    #expect(plain["review"] == nil && plain["formatVersion"] as? Int == 2)
  }

  @Test func anEntryWithoutItsRenderIsNotRecorded() throws {
    let f = try ReviewFixture(blurred: ["groundtruth/ultralytics-bus.jpg"], unedited: [])
    let file = try Self.export(f, reviewed: [["photo": "ultralytics-bus.jpg", "state": "approved"]])
    let snapshot = f.storeSnapshot()
    let r = runCLI(["apply", "--corrections", file, f.photos])
    #expect(r.status == 1)
    #expect(r.err.contains("the page does not say which render it showed"))
    #expect(f.storeSnapshot() == snapshot)
    // A render that is not 64 hex digits refuses the whole file (65), naming the field.
    let bad = try Self.export(
      f, reviewed: [["photo": "ultralytics-bus.jpg", "state": "approved", "render": "\u{1B}[2J"]])
    let refused = runCLI(["apply", "--corrections", bad, f.photos])
    #expect(refused.status == 65)
    #expect(refused.err.contains("'reviewed[0].render' is out of range"))
    #expect(!refused.err.contains("\u{1B}"))
  }
}
