import Foundation
import Testing
import UniformTypes
@testable import X11Pasteboard
import XTestSupport

/// Every Pasteboard member, in both directions: written here and read by xclip, written by
/// xclip and read here, and between two xpb connections.
@Suite(.serialized, .timeLimit(.minutes(2))) struct PasteboardTests {
    static let fixture = Result { try XFixture() }
    let x: XFixture
    let clipboard: Pasteboard

    init() throws {
        x = try Self.fixture.get()
        clipboard = x.pasteboard(.general)
    }

    // MARK: Strings

    @Test func stringWrittenHereIsPastedByXclipInEveryTextTarget() async throws {
        clipboard.string = "grüße, world"
        #expect(try await x.xclipPaste().data == Data("grüße, world".utf8))
        #expect(try await x.xclipPaste(type: "UTF8_STRING").data == Data("grüße, world".utf8))
        // STRING is ISO Latin-1 (ICCCM).
        #expect(try await x.xclipPaste(type: "STRING").data == Data([0x67, 0x72, 0xFC, 0xDF, 0x65]) + Data(", world".utf8))
        let targets = try await x.xclipTargets()
        #expect(targets.starts(with: ["TARGETS", "TIMESTAMP", "MULTIPLE"]))
        #expect(targets.contains(ItemArchive.target))
        #expect(clipboard.string == "grüße, world")  // from our own snapshot
        #expect(clipboard.hasStrings && !clipboard.hasURLs && !clipboard.hasImages && !clipboard.hasColors)
    }

    @Test func stringCopiedByXclipIsReadHere() async throws {
        let owner = try await x.xclipCopy(Data("from xclip\n".utf8), on: clipboard)
        defer { owner.terminate() }
        #expect(clipboard.string == "from xclip\n")
        #expect(clipboard.strings == ["from xclip\n"])
        #expect(clipboard.hasStrings)
        #expect(!clipboard.hasImages && !clipboard.hasURLs && !clipboard.hasColors)
        #expect(clipboard.types == ["public.utf8-plain-text"])
        #expect(clipboard.numberOfItems == 1)
        #expect(try await clipboard.async.string == "from xclip\n")
    }

    @Test func latin1StringFromXclipIsConverted() async throws {
        let owner = try await x.xclipCopy(Data([0x63, 0x61, 0x66, 0xE9]), type: "STRING", on: clipboard)
        defer { owner.terminate() }
        #expect(clipboard.string == "café")
    }

    @Test func severalStringsTravelBetweenXpbConnectionsAndXclipSeesTheFirst() async throws {
        clipboard.strings = ["one", "two", "three"]
        #expect(try await x.xclipPaste().data == Data("one".utf8))
        // Another connection of the same display reads the private target, as another process would.
        let reader = try await readFromAnotherConnection { $0.strings }
        #expect(reader == ["one", "two", "three"])
    }

    // MARK: URLs

    @Test func urlAlsoOffersItsStringAndXclipSeesAURIList() async throws {
        clipboard.url = URL(string: "https://example.com/a?b=c")!
        #expect(clipboard.url == URL(string: "https://example.com/a?b=c"))
        #expect(clipboard.string == "https://example.com/a?b=c")
        #expect(clipboard.hasURLs && clipboard.hasStrings)
        #expect(try await x.xclipPaste(type: "text/uri-list").data == Data("https://example.com/a?b=c\r\n".utf8))
        #expect(try await x.xclipPaste().data == Data("https://example.com/a?b=c".utf8))
    }

    @Test func severalFileURLsAreAllInTheURIListForOtherClients() async throws {
        let files = [URL(fileURLWithPath: "/tmp/a b.txt"), URL(fileURLWithPath: "/tmp/c.txt")]
        clipboard.urls = files
        #expect(clipboard.urls == files)
        #expect(clipboard.numberOfItems == 2)
        #expect(try await x.xclipPaste(type: "text/uri-list").data == Data("file:///tmp/a%20b.txt\r\nfile:///tmp/c.txt\r\n".utf8))
        #expect(try await x.xclipPaste(type: "x-special/gnome-copied-files").data == Data("copy\nfile:///tmp/a%20b.txt".utf8))
    }

    @Test func uriListFromXclipGivesOneItemPerURL() async throws {
        let list = Data("https://a.example/\r\nfile:///tmp/x\r\n".utf8)
        let owner = try await x.xclipCopy(list, type: "text/uri-list", on: clipboard)
        defer { owner.terminate() }
        #expect(clipboard.hasURLs && !clipboard.hasStrings)
        #expect(clipboard.urls == [URL(string: "https://a.example/")!, URL(string: "file:///tmp/x")!])
        #expect(clipboard.url == URL(string: "https://a.example/"))
        #expect(clipboard.numberOfItems == 2)
        #expect(clipboard.string == nil)
    }

    // MARK: Images and colors

    @Test func imageIsOfferedAsPNGBothWays() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 0, 255])
        clipboard.image = png
        #expect(try await x.xclipTargets().contains("image/png"))
        #expect(try await x.xclipPaste(type: "image/png").data == png)
        #expect(clipboard.image == png && clipboard.hasImages && !clipboard.hasStrings)

        let other = png + Data([9, 9])
        let owner = try await x.xclipCopy(other, type: "image/png", on: clipboard)
        defer { owner.terminate() }
        #expect(clipboard.hasImages && !clipboard.hasStrings)
        #expect(clipboard.image == other)
        #expect(clipboard.images == [other])
        #expect(clipboard.types == ["public.png"])
        #expect(clipboard.contains(pasteboardTypes: ["public.image"]))
        #expect(clipboard.data(forPasteboardType: "public.image") == other)
    }

    @Test func colorTravelsAsApplicationXColor() async throws {
        let color = RGBA16Color(red: 0xFFFF, green: 0x8000, blue: 0, alpha: 0xFFFF)
        clipboard.color = color
        #expect(clipboard.color == color && clipboard.hasColors)
        #expect(try await x.xclipPaste(type: "application/x-color").data == Data(color.bytes))

        let owner = try await x.xclipCopy(Data(RGBA16Color(red: 1, green: 2, blue: 3).bytes), type: "application/x-color", on: clipboard)
        defer { owner.terminate() }
        #expect(clipboard.hasColors && !clipboard.hasStrings)
        #expect(clipboard.colors == [RGBA16Color(red: 1, green: 2, blue: 3)])
    }

    // MARK: Items, types, data

    @Test func itemsKeepEveryRepresentationAndAddItemsAppends() async throws {
        clipboard.items = [["public.utf8-plain-text": "plain", "public.html": "<b>rich</b>"]]
        #expect(clipboard.numberOfItems == 1)
        #expect(Set(clipboard.types) == ["public.html", "public.utf8-plain-text"])
        #expect(try await x.xclipPaste(type: "text/html").data == Data("<b>rich</b>".utf8))
        clipboard.addItems([["com.example.custom": Data([1, 2, 3])]])
        let items = clipboard.items
        #expect(items.count == 2)
        #expect(items[0]["public.html"] as? String == "<b>rich</b>")
        #expect(items[0]["public.utf8-plain-text"] as? String == "plain")
        #expect(items[1]["com.example.custom"] as? Data == Data([1, 2, 3]))
        #expect(clipboard.itemSet(withPasteboardTypes: ["com.example.custom"]) == [1])
        #expect(clipboard.itemSet(withPasteboardTypes: ["public.text"]) == [0])
        #expect(clipboard.itemSet(withPasteboardTypes: ["public.png"]) == nil)
        #expect(clipboard.data(forPasteboardType: "com.example.custom", inItemSet: nil) == [Data([1, 2, 3])])
        #expect(clipboard.data(forPasteboardType: "public.html", inItemSet: [1]) == nil)
        #expect(clipboard.values(forPasteboardType: "public.html", inItemSet: [0]) as? [String] == ["<b>rich</b>"])
        #expect(clipboard.contains(pasteboardTypes: ["public.html"], inItemSet: [0]))
        #expect(!clipboard.contains(pasteboardTypes: ["public.html"], inItemSet: [1]))
        // Another process gets both items, the custom type included.
        let read = try await readFromAnotherConnection { $0.items.count }
        #expect(read == 2)
        let custom = try await readFromAnotherConnection { $0.data(forPasteboardType: "com.example.custom") }
        #expect(custom == nil)  // only the first item answers data(forPasteboardType:)
        let inSet = try await readFromAnotherConnection { $0.data(forPasteboardType: "com.example.custom", inItemSet: [1]) }
        #expect(inSet == [Data([1, 2, 3])])
    }

    @Test func setDataAndSetValueReplaceTheContent() async throws {
        clipboard.strings = ["a", "b"]
        clipboard.setData(Data("<p>x</p>".utf8), forPasteboardType: "public.html")
        #expect(clipboard.numberOfItems == 1)
        #expect(clipboard.types == ["public.html"])
        #expect(clipboard.data(forPasteboardType: "text/html") == Data("<p>x</p>".utf8))
        #expect(clipboard.value(forPasteboardType: "public.html") as? String == "<p>x</p>")
        #expect(clipboard.contains(pasteboardTypes: ["public.html"]) && !clipboard.contains(pasteboardTypes: ["public.png"]))
        #expect(!clipboard.hasStrings)  // HTML is text, but not plain text

        clipboard.setValue(URL(string: "https://swift.org")!, forPasteboardType: "public.url")
        #expect(clipboard.value(forPasteboardType: "public.url") as? URL == URL(string: "https://swift.org"))
        #expect(try await x.xclipPaste(type: "text/uri-list").data == Data("https://swift.org\r\n".utf8))
    }

    @Test func htmlFromXclipIsReadByTypeFromTargets() async throws {
        let owner = try await x.xclipCopy(Data("<i>x</i>".utf8), type: "text/html", on: clipboard)
        defer { owner.terminate() }
        #expect(clipboard.types == ["public.html"])
        #expect(clipboard.contains(pasteboardTypes: ["public.html"]) && !clipboard.hasStrings)
        #expect(clipboard.data(forPasteboardType: "public.html") == Data("<i>x</i>".utf8))
        #expect(clipboard.value(forPasteboardType: "public.html") as? String == "<i>x</i>")
        #expect(try await clipboard.async.data(forPasteboardType: "public.html") == Data("<i>x</i>".utf8))
    }

    @Test func settingNothingClearsTheSelection() async throws {
        clipboard.string = "soon gone"
        clipboard.items = []
        #expect(clipboard.string == nil && clipboard.numberOfItems == 0 && clipboard.types.isEmpty)
        #expect(try await x.xclipPaste().status != 0)
    }

    // MARK: Options

    @Test func expirationDateClearsTheSelectionOnTime() async throws {
        // Long enough for a loaded machine to read it back before it goes.
        let expiry = Date().addingTimeInterval(2)
        clipboard.setItems([["public.utf8-plain-text": "short-lived"]], options: [.expirationDate(expiry)])
        #expect(clipboard.string == "short-lived")
        #expect(clipboard.itemMetadata.first?.expirationDate.map { abs($0.timeIntervalSince(expiry)) < 0.01 } == true)
        let cleared = await eventually(timeout: .seconds(6)) { clipboard.string == nil }
        #expect(cleared)
        let late = Date().timeIntervalSince(expiry)
        #expect(late >= 0, "cleared \(late) s after the expiration date")
        #expect(try await x.xclipPaste().status != 0)
    }

    @Test func localOnlyIsInTheItemMetadataOfEveryReader() async throws {
        clipboard.setItems([["public.utf8-plain-text": "here only"], ["public.utf8-plain-text": "me too"]], options: [.localOnly(true)])
        #expect(clipboard.itemMetadata == [.init(isLocalOnly: true), .init(isLocalOnly: true)])
        let elsewhere = try await readFromAnotherConnection { $0.itemMetadata }
        #expect(elsewhere == [.init(isLocalOnly: true), .init(isLocalOnly: true)])
        clipboard.string = "ordinary"
        #expect(clipboard.itemMetadata == [.init()])
    }

    // MARK: Names

    @Test func namedPasteboardsAreSelectionsOfTheirOwn() async throws {
        let name = Pasteboard.Name("XPB_TEST_\(UUID().uuidString.prefix(8))")
        #expect(Pasteboard(name: name, create: false, displayName: x.display) == nil)
        let named = try #require(Pasteboard(name: name, create: true, displayName: x.display))
        #expect(named.name == name)
        #expect(Pasteboard(name: name, create: false, displayName: x.display) != nil)
        named.string = "named"
        clipboard.string = "general"
        #expect(named.string == "named" && clipboard.string == "general")
        Pasteboard.remove(withName: name)
        #expect(named.string == nil, "remove(withName:) clears a selection we own")
        #expect(Pasteboard.Name.general.rawValue == "CLIPBOARD" && Pasteboard.Name.primary.rawValue == "PRIMARY")
    }

    @Test func primaryAndSecondaryAreSeparateFromClipboard() async throws {
        let primary = x.pasteboard(.primary)
        let secondary = x.pasteboard(.secondary)
        primary.string = "p"
        secondary.string = "s"
        clipboard.string = "c"
        #expect(try await x.xclipPaste(selection: "primary").data == Data("p".utf8))
        #expect(try await x.xclipPaste(selection: "secondary").data == Data("s".utf8))
        #expect(primary.string == "p" && secondary.string == "s" && clipboard.string == "c")
    }

    @Test func asyncCounterpartsThrowWhenTheDisplayIsMissing() async throws {
        let nowhere = try #require(Pasteboard(name: .general, create: true, displayName: ":4095"))
        #expect(nowhere.string == nil && !nowhere.hasStrings && nowhere.changeCount == 0)
        await #expect(throws: PasteboardError.self) { _ = try await nowhere.async.string }
    }

    @Test func manyThreadsShareOnePasteboard() async throws {
        clipboard.string = "shared"
        let reads = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { await Task.detached { clipboard.string }.value } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(reads == Array(repeating: "shared", count: 16))
    }

    /// Runs `body` with a pasteboard of the same display on a second connection (another engine),
    /// which reads the way another xpb process does.
    private func readFromAnotherConnection<T: Sendable>(_ body: @escaping @Sendable (Pasteboard) -> T) async throws -> T {
        // A display name spelt differently opens a separate connection and engine.
        let other = try #require(Pasteboard(name: .general, create: true, displayName: "unix" + x.display))
        return body(other)
    }
}
