import ArgumentParser
import UniformTypes
import X11Pasteboard

extension XPB {
    /// `xpb type`: what the translator knows of a type; needs no X server.
    struct TypeInfo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "type",
            abstract: "Show what xpb knows of a type: its UTI, parents, MIME types, extensions and X targets.",
            discussion: """
                TYPE may be a UTI (public.html), a MIME type (text/html), an X target (UTF8_STRING) \
                or an extension with its dot (.png). Unknown MIME types and extensions get a dynamic \
                identifier (dyn.a…) that decodes back to its tag, as on Apple platforms.

                Examples:
                  xpb type .png
                  xpb type text/x-python --json
                  xpb type dyn.ah62d4rv4ge81g6pq
                """
        )

        @Argument(help: ArgumentHelp("The type to describe.", valueName: "type"))
        var type: String

        @Flag(help: "Print one JSON object (identifier, conformsTo, mimeTypes, extensions, atoms, isDynamic, description).")
        var json = false

        func run() throws {
            try reportingFailures {
                let report = TypeReport(try TypeArgumentParsing.resolve(type))
                try writeToStdout(Array((json ? report.jsonObject() + "\n" : report.text()).utf8))
            }
        }
    }
}
