public import UniformTypes

/// What a selection's owner offers, by target name, and the one policy for reading it: which
/// target a requested type is read from, what type each target is named as, and whether the
/// content is marked secret. `xpb paste`, `xpb types`, `xpb watch` and the `Pasteboard` model
/// all read through it, so they cannot disagree.
public struct TargetOffer: Sendable {
    /// One target the owner offers and the type it is read as.
    public struct Candidate: Sendable, Hashable {
        /// The type of the data.
        public var type: UTType
        /// The target to convert to.
        public var target: String
    }

    /// The owner's targets in its order, without the protocol targets (`TARGETS`, `MULTIPLE`…)
    /// or repeats.
    public let targets: [String]
    /// Whether the owner answers `MULTIPLE`, so several targets can be read in one round trip.
    public let supportsMultiple: Bool

    /// The offer made by a `TARGETS` answer, given by atom name.
    public init(targets names: [String]) {
        // Arrays, not sets: the everyday paste stays clear of the runtime's conformance search.
        var kept: [String] = []
        for name in names where !XTargetCrosswalk.protocolTargetNames.contains(name) && !kept.contains(name) {
            kept.append(name)
        }
        targets = kept
        supportsMultiple = names.contains("MULTIPLE")
    }

    /// One target per type, in the owner's order; every text target counts as UTF-8 text (the
    /// reader converts), and xpb's private items target is not a type of the first item.
    /// Worked out when asked: a plain text paste never loads the type table.
    public var candidates: [Candidate] {
        var candidates: [Candidate] = []
        for target in targets where target != Self.itemArchiveTarget {
            guard var type = Self.type(forTarget: target) else { continue }
            if type == .plainText || type == .utf8PlainText || type == .utf16PlainText { type = .utf8PlainText }
            if !candidates.contains(where: { $0.type == type }) { candidates.append(Candidate(type: type, target: target)) }
        }
        return candidates
    }

    /// The types on offer, one per type, in the owner's order.
    public var types: [UTType] { candidates.map(\.type) }

    /// The target xpb processes offer all their items under.
    static let itemArchiveTarget = "application/x-xpb-items"

    // MARK: Naming

    /// The type a target carries, nil for targets that carry no type of their own. A
    /// reverse-DNS name that is no known type is another program's private type, offered under
    /// its identifier: it reads back as that identifier.
    public static func type(forTarget target: String) -> UTType? {
        if !target.contains("/"), target.contains("."), !target.hasPrefix("."), UTType(target) == nil {
            return UTType(importedAs: target)
        }
        return XTargetCrosswalk.type(forTarget: target)
    }

    /// The type a target is shown as (`xpb types`, `xpb watch`): as `type(forTarget:)`, else the
    /// dynamic type of the atom name, so that every target has one.
    public static func shownType(forTarget target: String) -> UTType? {
        type(forTarget: target) ?? UTType(tag: target, tagClass: .xAtom, conformingTo: nil)
    }

    // MARK: Choosing what to read

    /// How to read `type`: the translator's best target for it; or, for a parent type such as
    /// `public.image` or `public.text`, the owner's first target whose type conforms to it
    /// (its PNG, its UTF-8 text). Nil when nothing on offer is of that type.
    public func plan(for type: UTType) -> ReadPlan? {
        if let target = XTargetCrosswalk.bestTarget(for: type, among: targets) {
            return ReadPlan(target: target, type: type)
        }
        if let candidate = candidates.first(where: { $0.type.conforms(to: type) }) {
            return ReadPlan(target: candidate.target, type: candidate.type)
        }
        return nil
    }

    /// What a paste without a type reads: text when any is offered (as UTF-8), else the owner's
    /// first data target as it is. Nil when nothing is offered.
    public func defaultPlan() -> ReadPlan? {
        if let text = XTargetCrosswalk.textReadTargets.first(where: targets.contains) {
            return ReadPlan(target: text, kind: .utf8Text)
        }
        // Text under another spelling (`text/plain;charset=UTF-8`): the translator decides.
        if let text = XTargetCrosswalk.bestTarget(for: .utf8PlainText, among: targets) {
            return ReadPlan(target: text, kind: .utf8Text)
        }
        return targets.first.map { ReadPlan(target: $0, kind: .asSent) }
    }

    /// The target of a file manager's copy (`x-special/gnome-copied-files` or
    /// `text/uri-list`), nil when the owner offers none.
    public var fileListTarget: String? {
        XTargetCrosswalk.bestTarget(for: .fileURL, among: targets)
    }

    // MARK: Secrets

    /// Whether the owner marks its content as a secret, or may: it offers
    /// `org.nspasteboard.ConcealedType`, or `x-kde-passwordManagerHint`, whose value
    /// `ConcealedContent.isSecret(hint:)` judges.
    public var marksConcealment: Bool {
        targets.contains(ConcealedContent.hintTarget) || targets.contains(UTType.concealed.identifier)
    }
}

/// How a read's bytes become the requested type.
public struct ReadPlan: Sendable, Hashable {
    /// What the bytes become, without naming a `UTType` where none is needed: the type table
    /// is loaded on first use, and the everyday text paste must not pay for it.
    enum Kind: Sendable, Hashable {
        case asSent
        case utf8Text
        case type(UTType)
    }

    /// The target to convert to.
    public var target: String
    let kind: Kind

    /// The type the bytes are converted to; nil keeps them as the owner sent them.
    public var type: UTType? {
        switch kind {
        case .asSent: nil
        case .utf8Text: .utf8PlainText
        case .type(let type): type
        }
    }

    /// Reads `target`, converting its bytes to `type` (nil: as they come).
    public init(target: String, type: UTType?) {
        self.target = target
        if type == .utf8PlainText {
            kind = .utf8Text
        } else {
            kind = type.map(Kind.type) ?? .asSent
        }
    }

    init(target: String, kind: Kind) {
        self.target = target
        self.kind = kind
    }

    /// Whether the translator hands the target's bytes over unchanged, so they can stream
    /// without being held whole: UTF-8 text targets for text, and data types it carries byte for
    /// byte. Text in other encodings, URLs, files and colours are converted.
    public var streams: Bool {
        switch kind {
        case .asSent:
            return true
        case .utf8Text:
            return Self.utf8TextTargets.contains(target)
        case .type(let type):
            if type == .plainText { return Self.utf8TextTargets.contains(target) }
            if type.conforms(to: .text) || [.url, .fileURL, .x11Color].contains(type) { return false }
            return XTargetCrosswalk.type(forTarget: target) == type
        }
    }

    private static let utf8TextTargets = ["UTF8_STRING", "text/plain;charset=utf-8"]

    /// The bytes of the plan's type made from what the owner sent (`replyType` names the
    /// encoding of `TEXT`).
    public func decode(_ bytes: [UInt8], replyType: String) throws -> [UInt8] {
        guard let type, !streams else { return bytes }
        return try XTargetCrosswalk.decode(bytes, target: target, replyType: replyType, to: type)
    }
}
