import Testing
@testable import UniformTypes

@Suite struct TypeNameTests {
    @Test func everyForm() {
        #expect(TypeName.resolve("public.html") == .html)
        #expect(TypeName.resolve("PUBLIC.HTML") == .html)
        #expect(TypeName.resolve("text/html") == .html)
        #expect(TypeName.resolve("text/plain; charset=UTF-8") == .utf8PlainText)
        #expect(TypeName.resolve("UTF8_STRING") == .utf8PlainText)
        #expect(TypeName.resolve("utf8_string") == .utf8PlainText)
        #expect(TypeName.resolve("STRING") == .plainText)
        #expect(TypeName.resolve("TEXT") == .plainText)
        #expect(TypeName.resolve("COMPOUND_TEXT") == .plainText)
        #expect(TypeName.resolve("PIXMAP") == .x11Pixmap)
        #expect(TypeName.resolve("_NETSCAPE_URL") == .url)
        #expect(TypeName.resolve(".png") == .png)
        #expect(TypeName.resolve(".PNG") == .png)
        #expect(TypeName.resolve(" .png ") == .png)
        #expect(TypeName.resolve("dyn.ah62d4rv4ge81g6pq")?.preferredFilenameExtension == "sql")
    }

    @Test func unknownMIMEAndExtensionsAreDynamic() {
        let mime = TypeName.resolve("application/x-xpb-unknown")
        #expect(mime?.isDynamic == true && mime?.preferredMIMEType == "application/x-xpb-unknown")
        let ext = TypeName.resolve(".xpbunknown")
        #expect(ext?.isDynamic == true && ext?.preferredFilenameExtension == "xpbunknown")
    }

    @Test func unknownWordsAreNil() {
        for word in ["", "   ", "png", "html", "public.hmtl", "com.example.undeclared", "FOO_BAR", "TARGETS", ".", "text/", "a b/c"] {
            #expect(TypeName.resolve(word) == nil, "\(word)")
        }
    }
}
