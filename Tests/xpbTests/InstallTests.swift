import Foundation
import Glibc
import Testing
import XTestSupport

/// `make install` into a temporary DESTDIR, a round trip through the installed names, the man
/// pages rendered, `make uninstall`; and the .deb built, installed with apt-get and removed.
///
/// Both install the `xpb` under test (XPB_BIN), not a release build: the release build costs
/// minutes and is the same source. The man pages come from ArgumentParser's generate-manual
/// (`make test` builds it; built here into .build-manual-tool when missing).
@Suite(.xServer, .serialized, .timeLimit(.minutes(5)))
struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func installRoundTripManPagesAndUninstall() async throws {
        let x = try XSession.require()
        let tool = try await Self.manualTool(x)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("xpb-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let make = try Tools.required("make", package: "make")
        let variables = ["DESTDIR=\(destination.path)", "PREFIX=/opt/xpb-test", "XPB_BIN=\(x.xpbPath)"]
        // The daemon's unit (another issue's file): installed, with ExecStart under PREFIX.
        let unit = destination.appendingPathComponent("xpb-daemon.service")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try Data("[Service]\nExecStart=/usr/local/bin/xpb daemon\n".utf8).write(to: unit)
        let install = try await x.run(
            "/usr/bin/env", ["MANUAL_TOOL=\(tool)", "DAEMON_UNIT=\(unit.path)", make, "-s", "-C", Self.repository.path, "install"] + variables,
            timeout: .seconds(120))
        #expect(install.status == 0, "\(install)")
        let root = destination.path + "/opt/xpb-test"
        let installedUnit = try String(contentsOfFile: root + "/lib/systemd/user/xpb-daemon.service", encoding: .utf8)
        #expect(installedUnit.contains("ExecStart=/opt/xpb-test/bin/xpb daemon"), "\(installedUnit)")
        try FileManager.default.removeItem(at: unit)

        // Stripped, and the names are links to it.
        let sections = try await x.run(try Tools.required("readelf", package: "binutils"), ["-S", "-W", root + "/bin/xpb"])
        #expect(sections.status == 0 && sections.stdoutText.contains(".text") && !sections.stdoutText.contains(".symtab"),
                "the installed xpb must be stripped: \(sections)")
        for link in ["bin/pbcopy", "bin/pbpaste", "lib/xpb/compat/xclip", "lib/xpb/compat/xsel"] {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + link)
            #expect(URL(fileURLWithPath: target, relativeTo: URL(fileURLWithPath: root + "/" + link)).standardizedFileURL.path == root + "/bin/xpb", "\(link) -> \(target)")
        }

        // A round trip through every installed name, and real xclip/xsel in between.
        expectSuccess(try await x.run(root + "/bin/pbcopy", [], stdin: .pipe(Data("installed pbcopy".utf8))))
        expectOutput(try await x.run(root + "/lib/xpb/compat/xclip", ["-o", "-selection", "clipboard"]), Data("installed pbcopy".utf8))
        expectOutput(try await x.xsel(["-b", "-o"]), Data("installed pbcopy".utf8))
        expectSuccess(try await x.run(root + "/lib/xpb/compat/xsel", ["-b", "-i"], stdin: .pipe(Data("installed xsel".utf8))))
        expectOutput(try await x.run(root + "/bin/pbpaste", []), Data("installed xsel".utf8))
        expectOutput(try await x.run(root + "/bin/xpb", ["paste"]), Data("installed xsel".utf8))
        // PATH with the compat directory first: `xclip` is xpb.
        let viaPath = try await x.run("/bin/sh", ["-c", "PATH=\(root)/lib/xpb/compat:$PATH; printf via-path | xclip -selection clipboard && xsel -o -b"])
        expectOutput(viaPath, Data("via-path".utf8))

        // The man pages render, one per subcommand.
        let man = try Tools.required("man", package: "man-db")
        for (page, needle) in [("xpb.1", "xpb.copy"), ("xpb.copy.1", "paste-once"), ("xpb.paste.1", "timeout")] {
            let rendered = try await x.run("/usr/bin/env", ["MANWIDTH=100", man, "-l", root + "/share/man/man1/" + page])
            #expect(rendered.status == 0 && rendered.stdoutText.contains("NAME") && rendered.stdoutText.contains(needle), "\(page): \(rendered)")
        }
        for completion in ["share/bash-completion/completions/xpb", "share/zsh/site-functions/_xpb", "share/fish/vendor_completions.d/xpb.fish"] {
            let text = (try? String(contentsOfFile: root + "/" + completion, encoding: .utf8)) ?? ""
            #expect(text.contains("paste-once"), "\(completion) must complete xpb's options")
        }

        let uninstall = try await x.run(make, ["-s", "-C", Self.repository.path, "uninstall"] + variables)
        #expect(uninstall.status == 0, "\(uninstall)")
        let left = FileManager.default.enumerator(atPath: destination.path)?.compactMap { entry -> String? in
            let path = destination.path + "/" + (entry as! String)
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue ? entry as? String : nil
        } ?? []
        #expect(left.isEmpty, "make uninstall left files: \(left)")
    }

    @Test(.enabled(if: getuid() == 0, "skipped: installing the .deb with apt-get needs root (CI runs as root)"))
    func debInstallsAndRemovesCleanly() async throws {
        let x = try XSession.require()
        let tool = try await Self.manualTool(x)
        let make = try Tools.required("make", package: "make")
        let built = try await x.run("/usr/bin/env", ["MANUAL_TOOL=\(tool)", make, "-s", "-C", Self.repository.path, "deb", "XPB_BIN=\(x.xpbPath)"], timeout: .seconds(120))
        #expect(built.status == 0, "\(built)")
        let deb = try #require(built.stdoutText.split(separator: "\n").last.map { Self.repository.path + "/" + $0 })
        let apt = try Tools.required("apt-get", package: "apt")
        let lock = ["-o", "DPkg::Lock::Timeout=120", "-y", "-q"]
        let installed = try await x.run("/usr/bin/env", ["DEBIAN_FRONTEND=noninteractive", apt] + lock + ["install", "--reinstall", deb], timeout: .seconds(180))
        #expect(installed.status == 0, "\(installed)")
        expectSuccess(try await x.run("/usr/bin/pbcopy", [], stdin: .pipe(Data("from the deb".utf8))))
        expectOutput(try await x.run("/usr/lib/xpb/compat/xclip", ["-o", "-selection", "clipboard"]), Data("from the deb".utf8))
        expectOutput(try await x.run("/usr/bin/pbpaste", []), Data("from the deb".utf8))
        let removed = try await x.run("/usr/bin/env", ["DEBIAN_FRONTEND=noninteractive", apt] + lock + ["remove", "xpb"], timeout: .seconds(180))
        #expect(removed.status == 0, "\(removed)")
        for path in ["/usr/bin/xpb", "/usr/bin/pbcopy", "/usr/bin/pbpaste", "/usr/lib/xpb", "/usr/share/man/man1/xpb.1.gz"] {
            #expect(!FileManager.default.fileExists(atPath: path), "apt-get remove xpb left \(path)")
        }
        let status = try await x.run("/usr/bin/dpkg-query", ["-W", "-f=${Status}", "xpb"])
        #expect(!status.stdoutText.contains("installed") || status.stdoutText.contains("not-installed"), "\(status)")
    }

    /// ArgumentParser's generate-manual: next to the tests (`make test` builds it), else built
    /// once into its own scratch directory (the running `swift test` holds .build).
    static func manualTool(_ x: XSession) async throws -> String {
        if let built = try? Tools.product("generate-manual") { return built }
        let scratch = repository.path + "/.build-manual-tool"
        let tool = scratch + "/debug/generate-manual"
        if FileManager.default.isExecutableFile(atPath: tool) { return tool }
        let swift = try Tools.required("swift", package: "the Swift toolchain")
        let build = try await x.run(swift, ["build", "--package-path", repository.path, "--scratch-path", scratch, "--product", "generate-manual"], timeout: .seconds(600))
        try #require(build.status == 0, "building generate-manual: \(build)")
        return tool
    }
}
