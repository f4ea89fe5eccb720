public import FoundationEssentials
public import UniformTypes

extension Pasteboard {
    /// The async counterparts of the blocking members, which suspend instead of blocking a
    /// thread and throw `PasteboardError` where the blocking members return nil.
    ///
    ///     let text = try await Pasteboard.general.async.string
    public var async: AsyncAccess { AsyncAccess(pasteboard: self) }

    /// The async members of a pasteboard; see `Pasteboard.async`.
    public struct AsyncAccess: Sendable {
        /// The pasteboard they act on.
        public let pasteboard: Pasteboard

        /// See `Pasteboard.string`.
        public var string: String? { get async throws(PasteboardError) { try await strings?.first } }
        /// See `Pasteboard.strings`.
        public var strings: [String]? { get async throws(PasteboardError) { nonEmpty(try await run(PasteboardOperations.strings())) } }
        /// See `Pasteboard.url`.
        public var url: URL? { get async throws(PasteboardError) { try await urls?.first } }
        /// See `Pasteboard.urls`.
        public var urls: [URL]? {
            get async throws(PasteboardError) { nonEmpty(try await run(PasteboardOperations.urls()).compactMap { URL(string: $0) }) }
        }
        /// See `Pasteboard.image`.
        public var image: Data? { get async throws(PasteboardError) { try await images?.first } }
        /// See `Pasteboard.images`.
        public var images: [Data]? {
            get async throws(PasteboardError) { nonEmpty(try await run(PasteboardOperations.images()).map { Data($0) }) }
        }
        /// See `Pasteboard.color`.
        public var color: RGBA16Color? { get async throws(PasteboardError) { try await colors?.first } }
        /// See `Pasteboard.colors`.
        public var colors: [RGBA16Color]? { get async throws(PasteboardError) { nonEmpty(try await run(PasteboardOperations.colors())) } }

        /// See `Pasteboard.hasStrings`.
        public var hasStrings: Bool { get async throws(PasteboardError) { try await run(PasteboardOperations.offers([.plainText])) } }
        /// See `Pasteboard.hasURLs`.
        public var hasURLs: Bool { get async throws(PasteboardError) { try await run(PasteboardOperations.offers([.url])) } }
        /// See `Pasteboard.hasImages`.
        public var hasImages: Bool { get async throws(PasteboardError) { try await run(PasteboardOperations.offers([.image])) } }
        /// See `Pasteboard.hasColors`.
        public var hasColors: Bool { get async throws(PasteboardError) { try await run(PasteboardOperations.offers([.x11Color])) } }

        /// See `Pasteboard.items`.
        public var items: [[String: Any]] { get async throws(PasteboardError) { try await run(PasteboardOperations.items()).map(\.dictionary) } }
        /// See `Pasteboard.numberOfItems`.
        public var numberOfItems: Int { get async throws(PasteboardError) { try await run(PasteboardOperations.numberOfItems()) } }
        /// See `Pasteboard.itemMetadata`.
        public var itemMetadata: [ItemMetadata] { get async throws(PasteboardError) { try await run(PasteboardOperations.metadata()) } }
        /// See `Pasteboard.types`.
        public var types: [String] { get async throws(PasteboardError) { try await run(PasteboardOperations.types()) } }
        /// See `Pasteboard.changeCount`.
        public var changeCount: Int {
            get async throws(PasteboardError) {
                let name = pasteboard.name
                return try await run { session, _ throws(PasteboardError) in try session.changeCount(of: name) }
            }
        }

        /// See `Pasteboard.contains(pasteboardTypes:)`.
        public func contains(pasteboardTypes: [String]) async throws(PasteboardError) -> Bool {
            try await run(PasteboardOperations.contains(pasteboardTypes.map(PasteboardType.resolve)))
        }

        /// See `Pasteboard.data(forPasteboardType:)`.
        public func data(forPasteboardType pasteboardType: String) async throws(PasteboardError) -> Data? {
            try await representation(pasteboardType).map { Data($0.bytes) }
        }

        /// See `Pasteboard.value(forPasteboardType:)`.
        public func value(forPasteboardType pasteboardType: String) async throws(PasteboardError) -> Any? {
            try await representation(pasteboardType).map(PasteboardType.value(of:))
        }

        /// See `Pasteboard.setItems(_:options:)`.
        /// - Throws: `.noDisplay`, `.cannotOpenDisplay`, `.ownershipRefused`.
        public func setItems(_ items: [[String: Any]], options: [Option] = []) async throws(PasteboardError) {
            try await run(PasteboardOperations.write(items.map(StoredItem.init(dictionary:)), options: options))
        }

        /// See `Pasteboard.addItems(_:)`.
        public func addItems(_ items: [[String: Any]]) async throws(PasteboardError) {
            try await run(PasteboardOperations.append(items.map(StoredItem.init(dictionary:))))
        }

        /// Replaces the content with one text item, like setting `Pasteboard.string`.
        public func setString(_ string: String) async throws(PasteboardError) {
            try await run(PasteboardOperations.write([PasteboardOperations.textItem(string)], options: []))
        }

        /// See `Pasteboard.setData(_:forPasteboardType:)`.
        public func setData(_ data: Data, forPasteboardType pasteboardType: String) async throws(PasteboardError) {
            let item = StoredItem([.init(type: PasteboardType.resolve(pasteboardType), bytes: Array(data))])
            try await run(PasteboardOperations.write([item], options: []))
        }

        /// See `Pasteboard.handOffToClipboardManager(timeout:)`.
        public func handOffToClipboardManager(timeout: Duration = .seconds(5)) async -> HandOffResult {
            do {
                return try await run { session, selection in session.handOffToClipboardManager(of: selection, timeout: timeout) }
            } catch {
                return .failed(error)
            }
        }

        private func representation(_ pasteboardType: String) async throws(PasteboardError) -> StoredItem.Representation? {
            try await run(PasteboardOperations.representations(PasteboardType.resolve(pasteboardType), firstOnly: true)).first ?? nil
        }

        private func run<T: Sendable>(_ operation: @escaping PasteboardOperations.Operation<T>) async throws(PasteboardError) -> T {
            try await pasteboard.runAsync(operation)
        }

        private func nonEmpty<T>(_ values: [T]) -> [T]? { values.isEmpty ? nil : values }
    }
}
