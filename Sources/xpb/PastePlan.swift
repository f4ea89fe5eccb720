import UniformTypes
import X11Pasteboard

/// Which target to ask an owner for and how its bytes reach the user: what `xpb paste` prints,
/// and what `xpb watch --exec` feeds its command.
struct PastePlan {
    /// The target to convert to.
    var target: String
    /// The type to convert the bytes to; nil when they go out as they arrive (nothing is held
    /// whole, and the type table is never loaded: the everyday text paste stays fast).
    var decodeAs: UTType?

    /// Targets whose bytes are already what the user gets for text.
    private static let utf8TextTargets = ["UTF8_STRING", "text/plain;charset=utf-8"]

    /// Chooses among the owner's targets: the one `typeArgument` names (an exact target name
    /// gives its bytes untouched, as `xclip -t` does), else the best text, else the first target.
    ///
    /// - Throws: exit 1 when the type is not offered or nothing is; exit 2 for an unknown type.
    init(typeArgument: String?, offered: [String], selectionName: String) throws(CommandFailure) {
        if let typeArgument {
            if offered.contains(typeArgument) {
                self.init(target: typeArgument, decodeAs: nil)
                return
            }
            let wanted = try TypeArgumentParsing.resolve(typeArgument)
            guard let target = XTargetCrosswalk.bestTarget(for: wanted, among: offered) else {
                throw CommandFailure(
                    "\(selectionName) does not offer \(typeArgument) (it offers: \(offered.joined(separator: ", ")))", exitCode: 1)
            }
            self.init(target: target, decodeAs: Self.isPassThrough(target, as: wanted) ? nil : wanted)
        } else if let exact = XTargetCrosswalk.textReadTargets.first(where: offered.contains) {
            self.init(target: exact, decodeAs: Self.utf8TextTargets.contains(exact) ? nil : .utf8PlainText)
        } else if let target = XTargetCrosswalk.bestTarget(for: .utf8PlainText, among: offered) {
            // Text under another spelling (`text/plain;charset=UTF-8`): the translator decides.
            self.init(target: target, decodeAs: .utf8PlainText)
        } else if let first = offered.first {
            self.init(target: first, decodeAs: nil)
        } else {
            throw CommandFailure("\(selectionName) offers nothing to paste", exitCode: 1)
        }
    }

    private init(target: String, decodeAs: UTType?) {
        self.target = target
        self.decodeAs = decodeAs
    }

    /// Whether the translator would hand the target's bytes over unchanged, so they can stream:
    /// UTF-8 text targets for plain text, and data types it carries byte for byte. Text in other
    /// encodings, URLs, files, HTML and colours are converted, so they are read whole first.
    private static func isPassThrough(_ target: String, as type: UTType) -> Bool {
        if type == .utf8PlainText || type == .plainText { return utf8TextTargets.contains(target) }
        if type.conforms(to: .text) || [.url, .fileURL, .x11Color].contains(type) { return false }
        return XTargetCrosswalk.type(forTarget: target) == type
    }

    /// Converts and hands the result to `sink`: chunk by chunk when it streams, else whole.
    func deliver(
        from reader: SelectionReader, _ selection: XAtom, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws(CommandFailure) {
        let connection = reader.connection
        do {
            guard let type = decodeAs else {
                try reader.convert(selection, to: connection.atom(target)) { bytes in try sink(bytes) }
                return
            }
            let (replyType, bytes) = try reader.read(selection, as: connection.atom(target))
            let decoded: [UInt8]
            do {
                decoded = try XTargetCrosswalk.decode(bytes, target: target, replyType: connection.name(of: replyType) ?? "", to: type)
            } catch {
                throw CommandFailure("cannot convert \(target) to \(type.identifier): \(error)")
            }
            try decoded.withUnsafeBytes { raw in try sink(raw) }
        } catch let error as PasteboardError {
            throw CommandFailure(error)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
