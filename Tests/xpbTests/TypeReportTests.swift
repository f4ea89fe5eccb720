import Testing
import UniformTypes
@testable import xpb

@Suite struct TypeReportTests {
    @Test func jsonForDeclared() {
        let json = TypeReport(.png).jsonObject()
        #expect(json == #"{"identifier":"public.png","conformsTo":["public.content","public.data","public.image","public.item"],"mimeTypes":["image/png","application/x-qt-image"],"extensions":["png"],"atoms":["image/png"],"isDynamic":false,"description":"PNG image"}"#)
    }

    @Test func jsonForDynamic() throws {
        let type = try #require(UTType(filenameExtension: "sql"))
        #expect(TypeReport(type).jsonObject() == #"{"identifier":"dyn.ah62d4rv4ge81g6pq","conformsTo":["public.data","public.item"],"mimeTypes":[],"extensions":["sql"],"atoms":["dyn.ah62d4rv4ge81g6pq"],"isDynamic":true,"description":null}"#)
    }

    @Test func text() {
        let text = TypeReport(.utf8PlainText).text()
        #expect(text.contains("identifier:  public.utf8-plain-text\n"))
        #expect(text.contains("conforms to: public.content, public.data, public.item, public.plain-text, public.text\n"))
        #expect(text.contains("X targets:   UTF8_STRING, text/plain;charset=utf-8, STRING, TEXT, text/plain\n"))
        #expect(TypeReport(.item).text().contains("MIME types:  -\n"))
    }

    @Test func jsonEscaping() {
        #expect(JSONValue.quote("a\"b\\c\n\t\r\u{01}\u{1F}é€😀\u{2028}") == #""a\"b\\c\n\t\r\u0001\u001fé€😀\u2028""#)
        #expect(JSONValue.array([.null, .bool(true), .int(-3), .object([])]).serialized == "[null,true,-3,{}]")
        #expect(JSONValue.object([JSONMember("k", .string("v"))]).serialized == #"{"k":"v"}"#)
    }
}
