import ArgumentParser
import SystemPackage
import UniformTypes
import X11Pasteboard

extension XPB {
    /// `xpb paste`: write a selection's content to stdout.
    struct Paste: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the content of a selection to stdout.",
            discussion: """
                Without -t, text is printed as UTF-8 (converted from Latin-1 STRING or TEXT when that \
                is all the owner has); with no text on offer, the owner's first data target is \
                written as it is. -t picks a type by UTI, MIME type, X target or .ext; a parent type \
                (public.image, public.text) takes the owner's first type that conforms to it. Exits 1 with \
                a message when nothing owns the selection or the type is not offered.

                Examples:
                  xpb paste
                  xpb paste -p                      (PRIMARY)
                  xpb paste -t text/html
                  xpb paste -t .png > image.png
                  xpb paste -t public.image > image     (whatever image is offered)
                  xpb paste -t UTF8_STRING --timeout 1
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(name: [.customShort("t"), .customLong("type")], help: ArgumentHelp("The type to paste (UTI, MIME type, X target or .ext).", valueName: "type"))
        var type: String?

        @Flag(help: "Print the copied files' paths, one per line (from a file manager's copy).")
        var files = false

        @Option(help: ArgumentHelp("Give up after this many seconds without progress.", valueName: "seconds"))
        var timeout: Double = 5

        func validate() throws {
            if !(timeout > 0) || !timeout.isFinite { throw ValidationError("--timeout needs a positive number of seconds") }
            if files && type != nil { throw ValidationError("give --files or -t, not both") }
        }

        func run() throws {
            try reportingFailures {
                try PasteRequest(
                    display: options.display, selection: options.selection, type: type, files: files, timeout: timeout
                ).run()
            }
        }
    }
}

/// What an owner offers, as the engine reports it, with the CLI's errors.
func offer(_ reader: SelectionReader, _ selection: XAtom) throws(CommandFailure) -> TargetOffer {
    do {
        return try reader.offer(of: selection)
    } catch {
        throw CommandFailure(error)
    }
}

/// Writes a whole array to stdout.
func writeToStdout(_ bytes: [UInt8]) throws(PasteboardError) {
    let written = bytes.withUnsafeBytes { raw in Result { () throws(PasteboardError) in try writeToStdout(raw) } }
    try written.get()
}

/// Writes to stdout, turning a failure (a closed pipe, a full disk) into the engine's error.
func writeToStdout(_ bytes: UnsafeRawBufferPointer) throws(PasteboardError) {
    do {
        try FileDescriptorIO.writeAll(.standardOutput, bytes)
    } catch {
        throw PasteboardError(.outputFailed, "cannot write to stdout: \(error)")
    }
}
