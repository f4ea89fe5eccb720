public import UniformTypes

extension SelectionContent {
    /// The X target that marks content as a secret for clipboard managers and history tools.
    public static let passwordManagerHintTarget = ConcealedContent.hintTarget

    /// Representations up to this size are converted to every target up front.
    static let eagerConversionLimit = 1 << 20

    /// Offers each representation under every target the crosswalk names for its type, in order;
    /// when two representations would offer the same target, the first one serves it.
    ///
    /// - Parameters:
    ///   - representations: the data of one item, keyed by type, in order of preference.
    ///   - isSensitive: adds `x-kde-passwordManagerHint` = `secret`, so managers and histories
    ///     neither store nor forward the content.
    public init(representations: [(type: UTType, data: [UInt8])], isSensitive: Bool = false) {
        var seen = Set<String>()
        var entries: [Entry] = []
        for (type, data) in representations {
            for target in XTargetCrosswalk.offeredTargets(for: type) where !seen.contains(target) {
                if data.count <= Self.eagerConversionLimit {
                    // Small data is converted now, so TARGETS lists only targets that convert.
                    guard let encoded = XTargetCrosswalk.encode(data, of: type, asTarget: target) else { continue }
                    let value = ServedValue(bytes: encoded.bytes, type: encoded.replyType, format: encoded.format)
                    entries.append(Entry(target: target, value: value))
                } else {
                    // Large data is converted on request: a 1 GiB text is not copied five times up front.
                    entries.append(Entry(target: target) {
                        XTargetCrosswalk.encode(data, of: type, asTarget: target).map {
                            ServedValue(bytes: $0.bytes, type: $0.replyType, format: $0.format)
                        }
                    })
                }
                seen.insert(target)
            }
        }
        if isSensitive {
            let hint = Self.passwordManagerHintTarget
            entries.append(Entry(target: hint, value: ServedValue(bytes: Array(ConcealedContent.hintValue.utf8), type: hint)))
        }
        self.init(entries: entries, isSensitive: isSensitive)
    }

    /// The content `init(representations: [(.utf8PlainText, utf8)])` makes, made without the
    /// type table, which the everyday copy of text must not load (see
    /// `ContentSniffer.isUTF8PlainText`). `utf8` must be valid UTF-8.
    public init(utf8Text utf8: [UInt8], isSensitive: Bool = false) {
        var entries: [Entry] = []
        for target in XTargetCrosswalk.textOfferTargets {
            if utf8.count <= Self.eagerConversionLimit {
                guard let encoded = XTargetCrosswalk.encodeUTF8Text(utf8, asTarget: target) else { continue }
                entries.append(Entry(target: target, value: ServedValue(bytes: encoded.bytes, type: encoded.replyType, format: encoded.format)))
            } else {
                entries.append(Entry(target: target) {
                    XTargetCrosswalk.encodeUTF8Text(utf8, asTarget: target).map {
                        ServedValue(bytes: $0.bytes, type: $0.replyType, format: $0.format)
                    }
                })
            }
        }
        if isSensitive {
            let hint = Self.passwordManagerHintTarget
            entries.append(Entry(target: hint, value: ServedValue(bytes: Array(ConcealedContent.hintValue.utf8), type: hint)))
        }
        self.init(entries: entries, isSensitive: isSensitive)
    }
}
