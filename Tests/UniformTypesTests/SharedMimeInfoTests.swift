import Foundation
import Testing
@testable import UniformTypes

@Suite struct SharedMimeInfoTests {
    /// A temporary `mime` directory with hand-written relations, so the test does not depend on
    /// what this machine has installed.
    static func fixture() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-mime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
        # comment line
        text/rtf application/rtf
        application/x-pdf application/pdf
        text/x-markdown text/markdown
        image/x-xpb-alias image/x-xpb-canonical
        text/ico image/vnd.microsoft.icon

        malformed-line-without-second-field
        """.write(to: directory.appendingPathComponent("aliases"), atomically: true, encoding: .utf8)
        try """
        text/x-python application/x-executable
        text/x-python text/plain
        text/x-python3 text/x-python
        application/rtf text/plain
        text/html text/plain
        application/x-xpb-config application/xml
        application/x-xpb-archive application/zip
        application/x-xpb-sub application/x-pdf
        """.write(to: directory.appendingPathComponent("subclasses"), atomically: true, encoding: .utf8)
        return directory.path
    }

    @Test func readsFixture() throws {
        let path = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = SharedMimeInfo(directory: path)
        #expect(database.loadedDirectories == [path])
        #expect(database.aliases.count == 5)
        #expect(database.subclasses["text/x-python"] == ["application/x-executable", "text/plain"])
        #expect(database.canonical("TEXT/RTF") == "application/rtf")
        #expect(database.canonical("text/plain; charset=utf-8") == "text/plain")
        #expect(database.aliases(of: "application/rtf") == ["text/rtf"])
        #expect(database.parents(of: "application/x-xpb-sub") == ["application/pdf"], "parents are canonicalised")
    }

    @Test func fixtureExtendsTheTable() throws {
        let path = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = SharedMimeInfo(directory: path)

        let python = try #require(database.type(forMIMEType: "text/x-python"))
        #expect(python.isDynamic)
        #expect(python.conforms(to: .plainText))
        #expect(!python.conforms(to: .executable), "application/x-executable is not followed")
        let python3 = try #require(database.type(forMIMEType: "text/x-python3"))
        #expect(python3.conforms(to: .plainText))

        // Aliases map onto declared types, in both directions.
        #expect(database.type(forMIMEType: "application/x-pdf") == .pdf)
        #expect(database.type(forMIMEType: "text/x-markdown") == .markdown)
        #expect(database.type(forMIMEType: "text/ico") == .ico, "text/ico is an image, not text")

        // Subclass edges reach declared types through fdo names.
        #expect(database.type(forMIMEType: "application/x-xpb-config")?.conforms(to: .xml) == true)
        #expect(database.type(forMIMEType: "application/x-xpb-archive")?.conforms(to: .zip) == true)
        #expect(database.type(forMIMEType: "application/x-xpb-sub")?.conforms(to: .pdf) == true)

        // Built-in parents win: fdo's text/html ⊂ text/plain does not leak into public.html.
        #expect(database.type(forMIMEType: "text/html") == .html)
        #expect(!UTType.html.conforms(to: .plainText))
        #expect(!UTType.rtf.conforms(to: .plainText))
    }

    @Test func builtInsWorkWithoutAnyDatabase() throws {
        let empty = SharedMimeInfo()
        #expect(empty.isEmpty)
        #expect(empty.type(forMIMEType: "text/rtf") == .rtf)
        #expect(empty.type(forMIMEType: "application/rtf") == .rtf)
        #expect(empty.type(forMIMEType: "text/plain;charset=UTF-8") == .utf8PlainText)
        // The spec's implicit rule (text/* ⊂ text/plain) and the image/audio/video umbrellas
        // need no files.
        #expect(empty.type(forMIMEType: "text/x-unknown-thing")?.conforms(to: .plainText) == true)
        #expect(empty.type(forMIMEType: "image/x-unknown-thing")?.conforms(to: .image) == true)
        #expect(empty.type(forMIMEType: "audio/x-unknown-thing")?.conforms(to: .audio) == true)
        #expect(empty.type(forMIMEType: "video/x-unknown-thing")?.conforms(to: .movie) == true)
        #expect(empty.type(forMIMEType: "application/x-unknown-thing")?.supertypes == [.data, .item])
        #expect(empty.type(forMIMEType: "application/x-pdf")?.isDynamic == true, "aliases need the database")
        let nonexistent = SharedMimeInfo(directory: "/nonexistent/xpb")
        #expect(nonexistent.isEmpty && nonexistent.loadedDirectories.isEmpty)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/mime/aliases")))
    func realDatabase() throws {
        let database = SharedMimeInfo(directory: "/usr/share/mime")
        #expect(database.aliases.count > 100)
        #expect(database.subclasses.count > 100)
        #expect(database.canonical("text/rtf") == "application/rtf")
        let python = try #require(database.type(forMIMEType: "text/x-python"))
        #expect(python.conforms(to: .plainText))
        #expect(database.type(forMIMEType: "application/rtf") == .rtf)
        #expect(database.type(forMIMEType: "text/rtf") == .rtf)
        #expect(database.type(forMIMEType: "application/x-pdf") == .pdf)
        #expect(database.type(forMIMEType: "text/x-csrc")?.conforms(to: .plainText) == true)
        #expect(database.type(forMIMEType: "application/vnd.oasis.opendocument.spreadsheet")?.identifier == "org.oasis-open.opendocument.spreadsheet")
        // And the process-wide database the initialisers use is this machine's.
        #expect(SharedMimeInfo.system.loadedDirectories.contains("/usr/share/mime"))
        #expect(UTType(mimeType: "text/x-python")?.conforms(to: .plainText) == true)
        #expect(UTType(mimeType: "text/x-python").flatMap { UTType($0.identifier) }?.conforms(to: .plainText) == true)
        #expect(!UTType.html.conforms(to: .plainText))
    }
}
