import Testing
@testable import UniformTypes

@Suite struct DynamicIdentifierTests {
    /// Identifiers seen in the wild (types.md §1.6), with the payload each must decode to.
    @Test(arguments: [
        ("dyn.ah62d4rv4ge81g6pq", "public.filename-extension", "sql"),
        ("dyn.ah62d4rv4ge8027pb", "public.filename-extension", "lua"),
        ("dyn.ah62d4rv4ge80g55eqy01s55wrr31a2pdqy", "public.filename-extension", "code-workspace"),
        ("dyn.ah62d4rv4ge8004pdqfwf86dwr6", "public.filename-extension", "kicad_pro"),
        ("dyn.ah62d4rv4gu8y63n2nuuhg5pbsm4ca6dbsr4gnkduqf31k3pcr7u1e3basv61a3k", "com.apple.nspboard-type", "NeXT smart paste pasteboard type"),
        ("dyn.ah62d4rv4gu8zs3pcnzme2641rf4guzdmsv0gn64uqm10c6xenv61a3k", "com.apple.nspboard-type", "WebURLsWithTitlesPboardType"),
    ])
    func appleIdentifiersDecode(identifier: String, tagClass: String, tag: String) throws {
        let type = try #require(UTType(identifier))
        #expect(type.isDynamic && !type.isDeclared && !type.isPublic)
        #expect(type.tags[UTTagClass(rawValue: tagClass)] == [tag])
        #expect(type.conforms(to: .data) && type.conforms(to: .item))
        #expect(type.localizedDescription == nil, "dynamic types never have descriptions")
        #expect(DynamicIdentifier.decode(identifier) == .init(conformsTo: ["public.data"], tagClass: tagClass, tag: tag))
        #expect(DynamicIdentifier.make(tagClass: tagClass, tag: tag, conformsTo: "public.data") == identifier)
    }

    @Test func sqlRoundTripsBothWays() throws {
        let sql = try #require(UTType(filenameExtension: "sql"))
        #expect(sql.identifier == "dyn.ah62d4rv4ge81g6pq")
        #expect(sql.preferredFilenameExtension == "sql")
        #expect(UTType("dyn.ah62d4rv4ge81g6pq") == sql)
        #expect(UTType("DYN.AH62D4RV4GE81G6PQ") == sql, "identifiers are case-insensitive, dynamic ones too")
        #expect(UTType(filenameExtension: "SQL") == sql)
        #expect(TypeName.resolve(".sql") == sql)
        #expect(sql.supertypes == [.data, .item])
    }

    @Test func iOSFormWithoutConformanceDecodes() throws {
        let payload = try #require(DynamicIdentifier.decode("dyn.age81g7dtsm60e55bsmwa"))
        #expect(payload == .init(conformsTo: [], tagClass: "public.filename-extension", tag: "storyboard"))
        let type = try #require(UTType("dyn.age81g7dtsm60e55bsmwa"))
        #expect(type.supertypes.isEmpty)
    }

    @Test func mimeAndAtomTagsRoundTrip() throws {
        let foo = try #require(UTType(mimeType: "application/x-xpb-test"))
        #expect(foo.isDynamic)
        #expect(DynamicIdentifier.decode(foo.identifier)?.tag == "application/x-xpb-test")
        #expect(foo.preferredMIMEType == "application/x-xpb-test")
        #expect(UTType(foo.identifier) == foo)
        #expect(UTType(foo.identifier)?.preferredMIMEType == "application/x-xpb-test")

        let atom = try #require(UTType(tag: "_XPB_PRIVATE", tagClass: .xAtom, conformingTo: nil))
        #expect(atom.isDynamic && atom.tags[.xAtom] == ["_XPB_PRIVATE"])
        #expect(UTType(atom.identifier)?.tags[.xAtom] == ["_XPB_PRIVATE"])

        // The conformance is part of the identity, as on Apple platforms.
        let asImage = try #require(UTType(filenameExtension: "zzimg", conformingTo: .image))
        #expect(asImage != UTType(filenameExtension: "zzimg"))
        #expect(asImage.conforms(to: .image))
        #expect(UTType(asImage.identifier)?.conforms(to: .image) == true)
        // Non-abbreviated conformance targets are written out in full and survive a round trip.
        let asJSON = try #require(UTType(filenameExtension: "zzjson", conformingTo: .json))
        #expect(UTType(asJSON.identifier)?.conforms(to: .json) == true)
    }

    @Test func mimeParametersSurviveVerbatim() throws {
        let atom = "application/x-openoffice-embed-source-xml;windows_formatname=\"Star Embed Source (XML)\""
        let type = try #require(UTType(mimeType: atom))
        #expect(type.preferredMIMEType == atom)
        #expect(XTargetCrosswalk.offeredTargets(for: type) == [atom])
        #expect(UTType(mimeType: "application/X-OpenOffice-Embed-Source-XML ; windows_formatname=\"Star Embed Source (XML)\"") == type)
    }

    @Test func invalidIdentifiersAreRejected() {
        for bad in ["dyn.", "dyn.a", "dyn.ai", "dyn.ah62d4rv4ge81g6pqz", "dyn.ah62d4rv4ge81g6p", "dyn.bh62d4rv4ge81g6pq", "dyn.ah62d4rv4ge81g6p!", "dyn.aaaa"] {
            #expect(UTType(bad) == nil, "\(bad) must not decode")
        }
    }

    /// Property: any extension, MIME type or atom gives a dynamic identifier that decodes back to
    /// exactly its tag (normalised) and names the same type.
    @Test func randomTagsRoundTrip() throws {
        var random = SplitMix64(seed: 0x5EED)
        let token = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+._!#$&^~"
        for _ in 0..<1500 {
            let type = "x-" + random.string(from: token, count: 1...12)
            let subtype = "zz" + random.string(from: token, count: 1...24)
            var mime = "\(type)/\(subtype)"
            if Bool.random(using: &random) { mime += ";p=" + random.string(from: token, count: 1...8) }
            let dynamic = try #require(UTType(mimeType: mime), "\(mime)")
            let expected = MIMEType.parse(mime)!.normalized
            #expect(dynamic.isDynamic)
            #expect(dynamic.preferredMIMEType == expected)
            let decoded = try #require(UTType(dynamic.identifier))
            #expect(decoded == dynamic && decoded.preferredMIMEType == expected)

            let ext = "qz" + random.string(from: "abcdefghijklmnopqrstuvwxyz0123456789_-éß", count: 1...16)
            let byExtension = try #require(UTType(filenameExtension: ext))
            #expect(byExtension.isDynamic)
            #expect(UTType(byExtension.identifier)?.preferredFilenameExtension == ext.lowercased())

            let atom = "_Q" + random.string(from: token + ":= ", count: 1...20)
            let byAtom = try #require(UTType(tag: atom, tagClass: .xAtom, conformingTo: nil))
            #expect(UTType(byAtom.identifier)?.tags[.xAtom] == [atom], "atoms with : and = survive")
        }
    }

    @Test func randomIdentifiersNeverCrash() {
        var random = SplitMix64(seed: 7)
        var accepted = 0
        for _ in 0..<3000 {
            let candidate = "dyn.a" + random.string(from: "abcdefghkmnpqrstuvwxyz0123456789", count: 0...40)
            if let type = UTType(candidate) {
                accepted += 1
                #expect(type.identifier == candidate)
                #expect(!type.tags.isEmpty)
            }
        }
        #expect(accepted < 3000, "most random strings are not canonical payloads")
    }
}
