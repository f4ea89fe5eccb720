import Testing
@testable import UniformTypes

/// Every row of the built-in table, checked the same way, so a bad row cannot hide.
@Suite struct RegistryTests {
    static let rows = systemTypeDeclarations

    @Test func tableHasTheResearchedRows() {
        #expect(Self.rows.count >= 120)
        let identifiers = Self.rows.map { $0.identifier.lowercased() }
        #expect(Set(identifiers).count == identifiers.count, "duplicate identifiers")
    }

    @Test(arguments: systemTypeDeclarations.map(\.identifier))
    func rowIsConsistent(_ identifier: String) throws {
        let row = try #require(Self.rows.first { $0.identifier == identifier })
        let type = try #require(UTType(identifier))
        #expect(type.identifier == identifier)
        #expect(type.isDeclared && !type.isDynamic)
        #expect(type.localizedDescription == row.description)
        // Every parent exists and is a direct supertype.
        for parent in row.conformsTo {
            let parentType = try #require(UTType(parent), "parent \(parent) of \(identifier) is not declared")
            #expect(type.isSubtype(of: parentType))
            #expect(parentType.isSupertype(of: type))
        }
        // No cycles: nothing is its own strict supertype.
        #expect(!type.supertypes.contains(type))
        // Every MIME type, extension and atom resolves back to a row carrying it; MIME types and
        // atoms are unique in the table, so they resolve to this very row.
        for mime in row.mimeTypes {
            #expect(UTType(mimeType: mime) == type, "\(mime) should resolve to \(identifier)")
            #expect(UTType(mimeType: mime.uppercased()) == type)
        }
        for ext in row.extensions {
            let byExtension = try #require(UTType(filenameExtension: ext, conformingTo: type))
            #expect(byExtension == type, ".\(ext) conforming to \(identifier)")
        }
        for atom in row.atoms {
            #expect(UTType(tag: atom, tagClass: .xAtom, conformingTo: nil) == type)
        }
        #expect(type.preferredMIMEType == row.mimeTypes.first)
        #expect(type.preferredFilenameExtension == row.extensions.first)
        #expect(type.tags[.mimeType] ?? [] == row.mimeTypes)
    }

    @Test func everyRowIsDataOrARoot() {
        // Pasteboard data must conform to public.data; the only exceptions are abstract roots.
        let abstract: Set<String> = [
            "public.item", "public.content", "public.composite-content", "public.directory", "public.folder",
            "public.volume", "public.symlink", "com.apple.resolvable", "com.apple.package", "public.executable",
            "public.archive", "public.message", "public.contact", "public.bookmark", "public.disk-image",
            "com.apple.live-photo", "public.calendar-event", "public.email-message", "public.log", "public.spreadsheet",
            "public.presentation", "com.apple.rtfd", "com.apple.pasteboard.promised-file-url",
            "com.apple.pasteboard.promised-file-content-type",
        ]
        for type in UTType.allDeclared where !abstract.contains(type.identifier) {
            #expect(type.conforms(to: .data), "\(type) does not conform to public.data")
        }
    }

    @Test func constantsAreTheRightRows() {
        let expected: [(UTType, String)] = [
            (.plainText, "public.plain-text"), (.utf8PlainText, "public.utf8-plain-text"),
            (.utf16PlainText, "public.utf16-plain-text"), (.html, "public.html"), (.url, "public.url"),
            (.fileURL, "public.file-url"), (.image, "public.image"), (.png, "public.png"), (.jpeg, "public.jpeg"),
            (.gif, "com.compuserve.gif"), (.webP, "org.webmproject.webp"), (.bmp, "com.microsoft.bmp"),
            (.svg, "public.svg-image"), (.tiff, "public.tiff"), (.pdf, "com.adobe.pdf"), (.rtf, "public.rtf"),
            (.data, "public.data"), (.item, "public.item"), (.content, "public.content"), (.text, "public.text"),
            (.json, "public.json"), (.xml, "public.xml"), (.vCard, "public.vcard"), (.zip, "public.zip-archive"),
            (.markdown, "net.daringfireball.markdown"), (.x11Color, "org.x.color"),
            (.concealed, "org.nspasteboard.ConcealedType"), (.symbolicLink, "public.symlink"),
        ]
        for (constant, identifier) in expected { #expect(constant.identifier == identifier) }
    }

    @Test func conformanceChains() {
        #expect(UTType.utf8PlainText.conforms(to: .plainText))
        #expect(UTType.utf8PlainText.conforms(to: .text))
        #expect(UTType.utf8PlainText.conforms(to: .data))
        #expect(UTType.utf8PlainText.conforms(to: .item))
        #expect(UTType.utf8PlainText.conforms(to: .content))
        #expect(UTType.png.supertypes == [.image, .data, .item, .content])
        #expect(UTType.fileURL.supertypes == [.url, .data, .item])
        #expect(UTType.svg.conforms(to: .xml) && UTType.svg.conforms(to: .image))
        #expect(UTType.pythonScript.conforms(to: .shellScript) && UTType.pythonScript.conforms(to: .plainText))
        #expect(UTType.utf8TabSeparatedText.conforms(to: .utf8PlainText) && UTType.utf8TabSeparatedText.conforms(to: .delimitedText))
        // Apple's hierarchy, not fdo's: HTML, RTF and XML are text but not plain text.
        #expect(!UTType.html.conforms(to: .plainText))
        #expect(!UTType.rtf.conforms(to: .plainText))
        #expect(!UTType.xml.conforms(to: .plainText))
        #expect(!UTType.png.conforms(to: .text))
        #expect(!UTType.data.conforms(to: .png))
        #expect(UTType.png.conforms(to: .png) && !UTType.png.isSubtype(of: .png) && !UTType.png.isSupertype(of: .png))
        #expect(UTType.image.isSupertype(of: .jpeg) && !UTType.jpeg.isSupertype(of: .image))
        #expect(UTType.item.supertypes.isEmpty)
    }

    @Test func identifiersAreCaseInsensitive() throws {
        let upper = try #require(UTType("PUBLIC.HTML"))
        #expect(upper == .html)
        #expect(upper.identifier == "public.html", "display keeps the declared spelling")
        #expect(UTType("org.nspasteboard.concealedtype")?.identifier == "org.nspasteboard.ConcealedType")
        #expect(Set([UTType.html, upper]).count == 1)
        let imported = UTType(importedAs: "Com.Example.Thing")
        #expect(imported == UTType(importedAs: "com.example.thing"))
        #expect(imported.hashValue == UTType(importedAs: "com.example.thing").hashValue)
        #expect(UTType("public.nonexistent") == nil)
        #expect(UTType("") == nil)
    }

    @Test func mimeLookupNormalisesCaseAndParameters() {
        #expect(UTType(mimeType: "text/plain; charset=UTF-8") == .utf8PlainText)
        #expect(UTType(mimeType: "TEXT/PLAIN;CHARSET=\"utf-8\"") == .utf8PlainText)
        #expect(UTType(mimeType: "text/plain ;charset = utf-8 ") == .utf8PlainText)
        #expect(UTType(mimeType: "text/plain") == .plainText)
        #expect(UTType(mimeType: "text/plain;charset=iso-8859-1") == .plainText, "unknown parameters fall back to the essence")
        #expect(UTType(mimeType: "Image/PNG") == .png)
        #expect(UTType(mimeType: "image/x-MS-bmp") == .bmp)
        #expect(UTType(mimeType: "text/html;charset=utf-8") == .html)
        #expect(UTType(mimeType: "text/uri-list") == .url)
        #expect(UTType(mimeType: "x-special/gnome-copied-files") == .fileURL)
        #expect(UTType(mimeType: "application/x-color") == .x11Color)
        for invalid in ["", "text", "text/", "/plain", "text/plain;charset", "te xt/plain", "text/plain;a=\"unterminated"] {
            #expect(UTType(mimeType: invalid) == nil, "\(invalid) is not a MIME type")
        }
    }

    @Test func extensionLookup() {
        #expect(UTType(filenameExtension: "PNG") == .png)
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(filenameExtension: "plist") == .propertyList, "first row in table order wins")
        #expect(UTType(filenameExtension: "plist", conformingTo: .xml)?.identifier == "com.apple.xml-property-list")
        #expect(UTType(filenameExtension: "mp4", conformingTo: .audio) == .mpeg4Audio)
        #expect(UTType(filenameExtension: "mp4") == .mpeg4Movie)
        #expect(UTType(filenameExtension: ".png") == nil, "the dot is not part of an extension")
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType(filenameExtension: "a/b") == nil)
    }

    @Test func conformingToPicksOrMakesDynamic() throws {
        // A declared match that does not conform gives a dynamic type that does, as on Apple platforms.
        let htmlAsImage = try #require(UTType(mimeType: "text/html", conformingTo: .image))
        #expect(htmlAsImage.isDynamic)
        #expect(htmlAsImage.conforms(to: .image))
        #expect(htmlAsImage.preferredMIMEType == "text/html")
        #expect(UTType(mimeType: "image/png", conformingTo: .image) == .png)
        #expect(UTType(tag: "image/png", tagClass: .mimeType, conformingTo: nil) == .png)
    }

    @Test func typesListsAllMatches() {
        let plists = UTType.types(tag: "plist", tagClass: .filenameExtension, conformingTo: nil)
        #expect(plists.map(\.identifier) == ["com.apple.property-list", "com.apple.xml-property-list", "com.apple.binary-property-list"])
        let unknown = UTType.types(tag: "zzq", tagClass: .filenameExtension, conformingTo: nil)
        #expect(unknown.count == 1 && unknown[0].isDynamic)
    }

    @Test func tagsAndFlags() {
        #expect(UTType.utf8PlainText.tags[.xAtom] == ["UTF8_STRING"])
        #expect(UTType.plainText.tags[.xAtom] == ["STRING", "TEXT", "COMPOUND_TEXT", "C_STRING"])
        #expect(UTType.png.tags[.filenameExtension] == ["png"])
        #expect(UTType.item.tags.isEmpty)
        #expect(UTType.png.isPublic && !UTType.gif.isPublic)
        #expect(UTTagClass.filenameExtension.rawValue == "public.filename-extension")
        #expect(UTTagClass.mimeType.rawValue == "public.mime-type")
        #expect(UTTagClass.xAtom.rawValue == "org.x.target-atom")
        #expect(UTType.png.description == "public.png")
    }

    @Test func importedTypes() {
        let custom = UTType(importedAs: "com.example.widget", conformingTo: .json)
        #expect(!custom.isDeclared && !custom.isDynamic)
        #expect(custom.conforms(to: .text))
        #expect(custom.localizedDescription == "JSON", "descriptions are inherited from parents")
        #expect(UTType(importedAs: "public.png") == .png)
        #expect(UTType(importedAs: "public.png").isDeclared)
    }
}
