import ArgumentParser
import Glibc
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
                written as it is. -t picks a type by UTI, MIME type, X target or .ext. Exits 1 with \
                a message when nothing owns the selection or the type is not offered.

                Examples:
                  xpb paste
                  xpb paste -p                      (PRIMARY)
                  xpb paste -t text/html
                  xpb paste -t .png > image.png
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
                let connection = try options.connect()
                let selection = connection.atom(options.selection)
                let reader = SelectionReader(connection: connection, timeout: .milliseconds(Int64(timeout * 1000)))
                let offered = try offeredTargets(reader, selection)
                if files { return try pasteFiles(reader, selection, offered) }
                let plan = try choose(from: offered)
                if plan.stream {
                    try reader.convert(selection, to: connection.atom(plan.target)) { bytes in
                        try writeToStdout(bytes)
                    }
                } else {
                    let (replyType, bytes) = try reader.read(selection, as: connection.atom(plan.target))
                    let decoded: [UInt8]
                    do {
                        decoded = try XTargetCrosswalk.decode(
                            bytes, target: plan.target, replyType: connection.name(of: replyType) ?? "", to: plan.type)
                    } catch {
                        throw CommandFailure("cannot convert \(plan.target) to \(plan.type.identifier): \(error)")
                    }
                    try writeToStdout(decoded)
                }
            }
        }

        /// `--files`: the local paths of a file manager's copy, from `x-special/gnome-copied-files`
        /// or `text/uri-list`, one per line.
        private func pasteFiles(_ reader: SelectionReader, _ selection: XAtom, _ offered: [String]) throws {
            guard let target = XTargetCrosswalk.bestTarget(for: .fileURL, among: offered) else {
                throw CommandFailure("\(options.selection) holds no files (it offers: \(offered.joined(separator: ", ")))", exitCode: 1)
            }
            let (replyType, bytes) = try reader.read(selection, as: reader.connection.atom(target))
            let uris: [String]
            do {
                uris = try XTargetCrosswalk.decodeURIs(bytes, target: target, replyType: reader.connection.name(of: replyType) ?? "")
            } catch {
                throw CommandFailure("cannot read the file list in \(target): \(error)", exitCode: 1)
            }
            let paths = uris.compactMap(FileURL.pathBytes(fromURI:))
            guard !paths.isEmpty else {
                throw CommandFailure("\(options.selection) holds no local files, only: \(uris.joined(separator: " "))", exitCode: 1)
            }
            try writeToStdout(paths.flatMap { $0 + [UInt8(ascii: "\n")] })
        }

        /// What to ask the owner for, and whether its bytes go out as they are.
        private struct Plan {
            var target: String
            var type: UTType
            var stream: Bool
        }

        /// Targets whose bytes are already what the user gets: streamed, never held whole.
        private static let utf8TextTargets: Set<String> = ["UTF8_STRING", "text/plain;charset=utf-8"]

        /// Whether the translator would hand the target's bytes over unchanged, so they can stream:
        /// UTF-8 text targets for plain text, and data types it carries byte for byte. Text in other
        /// encodings, URLs, files, HTML and colours are converted, so they are read whole first.
        private static func isPassThrough(_ target: String, as type: UTType) -> Bool {
            if type == .utf8PlainText || type == .plainText { return utf8TextTargets.contains(target) }
            if type.conforms(to: .text) || [.url, .fileURL, .x11Color].contains(type) { return false }
            return XTargetCrosswalk.type(forTarget: target) == type
        }

        private func choose(from offered: [String]) throws(CommandFailure) -> Plan {
            let selection = options.selection
            if let type {
                // An exact X target name gets that target's bytes untouched, as xclip -t does.
                if offered.contains(type) {
                    return Plan(target: type, type: XTargetCrosswalk.type(forTarget: type) ?? .data, stream: true)
                }
                let wanted = try TypeArgumentParsing.resolve(type)
                guard let target = XTargetCrosswalk.bestTarget(for: wanted, among: offered) else {
                    throw CommandFailure(
                        "\(selection) does not offer \(type) (it offers: \(offered.joined(separator: ", ")))", exitCode: 1)
                }
                return Plan(target: target, type: wanted, stream: Self.isPassThrough(target, as: wanted))
            }
            if let target = XTargetCrosswalk.bestTarget(for: .utf8PlainText, among: offered) {
                return Plan(target: target, type: .utf8PlainText, stream: Self.isPassThrough(target, as: .utf8PlainText))
            }
            guard let first = offered.first else {
                throw CommandFailure("\(selection) offers nothing to paste", exitCode: 1)
            }
            return Plan(target: first, type: XTargetCrosswalk.type(forTarget: first) ?? .data, stream: true)
        }
    }
}

/// The targets an owner offers, by name, without the protocol targets.
func offeredTargets(_ reader: SelectionReader, _ selection: XAtom) throws(CommandFailure) -> [String] {
    do {
        let atoms = try reader.targets(of: selection)
        let names = reader.connection.names(of: atoms).compactMap { $0 }
        var seen = Set<String>()
        return names.filter { !XTargetCrosswalk.protocolTargets.contains($0) && seen.insert($0).inserted }
    } catch where error.code == .targetNotOffered {
        // Owners that refuse TARGETS still tend to convert to text (ICCCM predates TARGETS use).
        return ["UTF8_STRING", "STRING"]
    } catch {
        throw CommandFailure(error)
    }
}

/// Writes a whole array to stdout.
func writeToStdout(_ bytes: [UInt8]) throws(PasteboardError) {
    if !bytes.withUnsafeBytes({ FileDescriptorIO.writeAll(1, $0) }) {
        throw PasteboardError(.outputFailed, "cannot write to stdout: \(String(cString: strerror(errno)))")
    }
}

/// Writes to stdout, turning a failure (a closed pipe, a full disk) into the engine's error.
func writeToStdout(_ bytes: UnsafeRawBufferPointer) throws(PasteboardError) {
    if !FileDescriptorIO.writeAll(1, bytes) {
        throw PasteboardError(.outputFailed, "cannot write to stdout: \(String(cString: strerror(errno)))")
    }
}
