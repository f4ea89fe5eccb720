import Testing
import UniformTypes
@testable import X11Pasteboard

/// The one policy for reading an owner's offer, without a server.
@Suite struct TargetOfferTests {
    @Test func protocolTargetsAndRepeatsAreNotOffers() {
        let offer = TargetOffer(targets: ["TARGETS", "MULTIPLE", "UTF8_STRING", "TIMESTAMP", "UTF8_STRING", "text/html"])
        #expect(offer.targets == ["UTF8_STRING", "text/html"])
        #expect(offer.supportsMultiple)
        #expect(!TargetOffer(targets: ["UTF8_STRING"]).supportsMultiple)
        #expect(offer.types == [.utf8PlainText, .html])
    }

    @Test func everyTextTargetIsOneUTF8TextType() {
        let offer = TargetOffer(targets: ["STRING", "UTF8_STRING", "text/plain"])
        #expect(offer.types == [.utf8PlainText])
    }

    @Test func aParentTypeReadsTheFirstConformingTarget() {
        let images = TargetOffer(targets: ["text/html", "image/png", "image/jpeg"])
        #expect(images.plan(for: .image) == ReadPlan(target: "image/png", type: .png))
        #expect(images.plan(for: .image)?.streams == true, "PNG bytes go out as they come")
        let text = TargetOffer(targets: ["UTF8_STRING", "STRING"])
        #expect(text.plan(for: .text) == ReadPlan(target: "UTF8_STRING", type: .utf8PlainText))
        #expect(text.plan(for: .data)?.target == "UTF8_STRING")
        #expect(text.plan(for: .image) == nil)
    }

    @Test func latin1TextIsConvertedNotStreamed() throws {
        let plan = TargetOffer(targets: ["STRING"]).plan(for: .plainText)
        #expect(plan?.target == "STRING")
        #expect(plan?.streams == false)
        #expect(try plan?.decode([0x67, 0xFC], replyType: "STRING") == Array("gü".utf8))
    }

    @Test func aDynamicTypeMatchesOnlyItsOwnTarget() throws {
        let timestamp = try #require(UTType(tag: "TIMESTAMP", tagClass: .xAtom, conformingTo: nil))
        #expect(TargetOffer(targets: ["UTF8_STRING", "image/png"]).plan(for: timestamp) == nil)
    }

    @Test func withoutATypeTextComesFirstElseTheFirstTarget() {
        #expect(TargetOffer(targets: ["image/png", "STRING"]).defaultPlan() == ReadPlan(target: "STRING", type: .utf8PlainText))
        #expect(TargetOffer(targets: ["image/png", "text/html"]).defaultPlan() == ReadPlan(target: "image/png", type: nil))
        #expect(TargetOffer(targets: ["text/plain;charset=UTF-8"]).defaultPlan()?.type == .utf8PlainText)
        #expect(TargetOffer(targets: []).defaultPlan() == nil)
    }

    @Test func aPrivateTargetIsNamedByItsIdentifierEverywhere() {
        #expect(TargetOffer.type(forTarget: "com.example.private")?.identifier == "com.example.private")
        #expect(TargetOffer.shownType(forTarget: "com.example.private")?.identifier == "com.example.private")
        #expect(TargetOffer(targets: ["com.example.private"]).types.map(\.identifier) == ["com.example.private"])
        #expect(TargetOffer.shownType(forTarget: "_MY_APP_DATA")?.isDynamic == true)
    }

    @Test func fileListsComeFromAFileManagersTargets() {
        #expect(TargetOffer(targets: ["UTF8_STRING", "text/uri-list"]).fileListTarget == "text/uri-list")
        #expect(TargetOffer(targets: ["x-special/gnome-copied-files", "text/uri-list"]).fileListTarget == "x-special/gnome-copied-files")
        #expect(TargetOffer(targets: ["UTF8_STRING"]).fileListTarget == nil)
    }

    @Test func secretsAreMarkedByTheHintOrTheConcealedType() {
        #expect(TargetOffer(targets: ["UTF8_STRING", "x-kde-passwordManagerHint"]).marksConcealment)
        #expect(TargetOffer(targets: ["org.nspasteboard.ConcealedType"]).marksConcealment)
        #expect(!TargetOffer(targets: ["UTF8_STRING"]).marksConcealment)
        #expect(ConcealedContent.isSecret(hint: Array("secret".utf8)))
        #expect(ConcealedContent.isSecret(hint: Array("secret\n".utf8)))
        #expect(!ConcealedContent.isSecret(hint: Array("public".utf8)))
        #expect(ConcealedContent.marks([.utf8PlainText, .concealed]))
    }
}
