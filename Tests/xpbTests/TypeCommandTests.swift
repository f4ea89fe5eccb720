import Foundation
import Testing
import UniformTypes
import XTestSupport

/// `xpb type` needs no X server and must answer for every type the registry declares, with the
/// JSON keys SPEC §2 names.
@Suite(.timeLimit(.minutes(2))) struct TypeCommandTests {
    private func typeJSON(_ argument: String) async throws -> [String: Any] {
        let run = try await ChildProcess.run(try Tools.product("xpb"), ["type", argument, "--json"], environment: [:])
        #expect(run.status == 0, "xpb type \(argument): \(run.stderrText)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "xpb type \(argument)")
    }

    @Test func answersForEveryDeclaredType() async throws {
        #expect(UTType.allDeclared.count >= 120)
        for type in UTType.allDeclared {
            let object = try await typeJSON(type.identifier)
            #expect(object["identifier"] as? String == type.identifier)
            #expect(Set(object["conformsTo"] as? [String] ?? []) == Set(type.supertypes.map(\.identifier)), "\(type.identifier)")
            #expect(object["mimeTypes"] as? [String] == type.tags[.mimeType] ?? [], "\(type.identifier)")
            #expect(object["isDynamic"] as? Bool == false)
        }
    }

    @Test func apple_sDynamicIdentifierDecodesToItsExtension() async throws {
        let object = try await typeJSON("dyn.ah62d4rv4ge81g6pq")
        #expect(object["extensions"] as? [String] == ["sql"])
        #expect(object["isDynamic"] as? Bool == true)
    }

    @Test func everySpellingOfATypeGivesTheSameUTI() async throws {
        for spelling in ["public.png", "PUBLIC.PNG", "image/png", ".png"] {
            #expect(try await typeJSON(spelling)["identifier"] as? String == "public.png", "\(spelling)")
        }
        #expect(try await typeJSON("UTF8_STRING")["identifier"] as? String == "public.utf8-plain-text")
    }
}
