import Foundation
import Glibc
import Testing

/// How long an `xpb copy` serves and how it ends: detached by default, `--foreground`,
/// `--paste-once`, `--loops`, `--expire`, and `xpb clear`.
@Suite(.xServer, .serialized, .timeLimit(.minutes(2)))
struct LifecycleTests {
    /// Live xpb processes started by the command with this tag (e.g. the detached server).
    static func xpbProcesses(tag: String, xpb: String) -> [pid_t] {
        ProcessTable.pids(tagged: harnessTagVariable, value: tag).filter {
            ProcessTable.executable(of: $0).map { URL(fileURLWithPath: $0).lastPathComponent }
                == URL(fileURLWithPath: xpb).lastPathComponent
        }
    }

    @Test("xpb copy returns at once, owning the selection, served by a detached process")
    func copyDetaches() async throws {
        let x = try XSession.require()
        let data = Data("detached\n".utf8)
        let copy = try await x.xpb(["copy"], stdin: .pipe(data), timeout: .seconds(10))
        expectSuccess(copy, "printf … | xpb copy")
        #expect(copy.stdout.isEmpty)
        #expect(copy.seconds < 3, "xpb copy must return as soon as it owns the selection, took \(copy.seconds) s")
        #expect(try await x.owner("CLIPBOARD") != 0, "CLIPBOARD must be owned when xpb copy returns")

        let servers = Self.xpbProcesses(tag: copy.tag, xpb: x.xpbPath)
        #expect(servers.count == 1, "one detached xpb process must be serving, found \(servers)")
        if let server = servers.first,
           let stat = FileManager.default.contents(atPath: "/proc/\(server)/stat").map({ String(decoding: $0, as: UTF8.self) }),
           let close = stat.lastIndex(of: ")") {
            // Fields after "(comm)": state ppid pgrp session ...
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            #expect(fields.count > 3 && fields[3] == "\(server)", "the detached server must lead its own session: \(stat)")
            for fd in 0...2 {
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server)/fd/\(fd)")
                #expect(target == nil || target == "/dev/null",
                        "the detached server must not keep the caller's stdio open: fd \(fd) → \(target ?? "-")")
            }
        }
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), data)

        // Another client takes CLIPBOARD: the detached server exits.
        let taker = try await x.xclipOwner("clipboard", Data("taken".utf8))
        let gone = await ProcessTable.waitUntilGone(tagged: harnessTagVariable, value: copy.tag, timeout: .seconds(5))
        #expect(gone, "the detached xpb server must exit once another client owns CLIPBOARD; still running: \(ProcessTable.pids(tagged: harnessTagVariable, value: copy.tag))")
        await x.stop(taker)
    }

    @Test("the detached server keeps none of its caller's file descriptors")
    func detachedServerClosesInheritedDescriptors() async throws {
        let x = try XSession.require()
        // The caller has descriptor 7 open on a file; a detached server must not hold it (nor any
        // pipe or socket a caller may wait on: a parent that waits for EOF would hang until the
        // clipboard changes, which is the xclip bug this command exists to avoid).
        let marker = try x.file("caller-descriptor", Data())
        let copy = try await x.run(
            "/bin/sh", ["-c", "exec 7>\"$1\"; printf 'descriptors' | \"$0\" copy", x.xpbPath, marker.path],
            timeout: .seconds(10))
        #expect(!copy.timedOut && copy.status == 0, "\(copy)")
        let servers = Self.xpbProcesses(tag: copy.tag, xpb: x.xpbPath)
        #expect(servers.count == 1, "one detached xpb process must be serving, found \(servers)")
        for server in servers {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server)/fd")) ?? []
            let held = fds.compactMap { fd -> String? in
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server)/fd/\(fd)")
                return target == marker.path ? "fd \(fd) → \(marker.lastPathComponent)" : nil
            }
            #expect(held.isEmpty, "the detached xpb server (pid \(server)) still holds its caller's descriptor: \(held)")
        }
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), Data("descriptors".utf8))
    }

    @Test("x=$(printf … | xpb copy) does not hang the shell")
    func commandSubstitutionReturns() async throws {
        let x = try XSession.require()
        let script = "x=$(printf 'substituted' | \"$0\" copy); printf '[%s]' \"$x\""
        let result = try await x.run("/bin/sh", ["-c", script, x.xpbPath], timeout: .seconds(10))
        #expect(!result.timedOut && result.status == 0, "\(result)")
        #expect(result.stdoutText == "[]", "\(result)")
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), Data("substituted".utf8))
    }

    @Test("--foreground serves until another client takes the selection, then exits 0")
    func foregroundExitsWhenTaken() async throws {
        let x = try XSession.require()
        let data = Data("foreground ✓".utf8)
        let before = try await x.owner("CLIPBOARD")
        let server = try x.spawn(x.xpbPath, ["copy", "--foreground"], stdin: .bytes(data))
        let owner = try await x.waitForNewOwner("CLIPBOARD", previous: before)
        try #require(owner != nil, "xpb copy --foreground never took CLIPBOARD: \(server.result())")

        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), data)
        expectOutput(try await x.xsel(["-b", "-o"]), data)
        #expect(server.isRunning, "--foreground keeps serving after requests: \(server.result())")

        let taker = try await x.xclipOwner("clipboard", Data("new owner".utf8))
        let exited = await server.waitForExit(timeout: .seconds(5))
        #expect(exited, "xpb copy --foreground must exit once it loses CLIPBOARD")
        let result = exited ? server.result() : await x.stop(server)
        #expect(result.status == 0 && !result.signaled, "exit status after losing the selection: \(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "nothing printed: \(result)")
        expectOutput(try await x.xpb(["paste"]), Data("new owner".utf8))
        await x.stop(taker)
    }

    @Test("--foreground exits 0 when the selection is cleared by another client")
    func foregroundExitsWhenCleared() async throws {
        let x = try XSession.require()
        let before = try await x.owner("PRIMARY")
        let server = try x.spawn(x.xpbPath, ["copy", "-p", "--foreground"], stdin: .bytes(Data("primary".utf8)))
        try #require(try await x.waitForNewOwner("PRIMARY", previous: before) != nil,
                     "xpb copy -p --foreground never took PRIMARY: \(server.result())")
        let clear = try await x.xsel(["-p", "--clear"])
        #expect(clear.status == 0, "\(clear)")
        let exited = await server.waitForExit(timeout: .seconds(5))
        #expect(exited, "xpb copy --foreground must exit when PRIMARY is cleared")
        let result = exited ? server.result() : await x.stop(server)
        #expect(result.status == 0 && !result.signaled, "\(result)")
    }

    @Test("--paste-once: TARGETS and TIMESTAMP do not count; one data conversion ends it")
    func pasteOnce() async throws {
        let x = try XSession.require()
        let data = Data("only once".utf8)
        let before = try await x.owner("CLIPBOARD")
        let command = try x.spawn(x.xpbPath, ["copy", "--paste-once"], stdin: .bytes(data))
        let owner = try await x.waitForNewOwner("CLIPBOARD", previous: before)
        try #require(owner != nil, "xpb copy --paste-once never took CLIPBOARD: \(command.result())")

        for target in ["TARGETS", "TIMESTAMP", "TARGETS"] {
            let reply = try await x.convert("CLIPBOARD", target)
            #expect(reply.value != nil, "\(target) before the paste: \(reply)")
        }
        expectOutput(try await x.xclip(["-selection", "clipboard", "-o"]), data)

        // Whether it detached or not, every process of that command ends, and so does the ownership.
        let gone = await ProcessTable.waitUntilGone(tagged: harnessTagVariable, value: command.tag, timeout: .seconds(5))
        #expect(gone, "xpb copy --paste-once must exit after one paste")
        #expect(try await x.waitForNoOwner("CLIPBOARD", timeout: .seconds(3)), "CLIPBOARD must have no owner after the one paste")
        let result = await x.stop(command)
        #expect(result.status == 0 && !result.signaled, "\(result)")
        expectXpbError(try await x.xpb(["paste"]), status: 1, "a second paste after --paste-once")
    }

    @Test("--loops 2 serves two data conversions")
    func loops() async throws {
        let x = try XSession.require()
        let data = Data("twice".utf8)
        let before = try await x.owner("SECONDARY")
        // Whether --loops detaches or not, the command's processes are found by their tag.
        let command = try x.spawn(x.xpbPath, ["copy", "--loops", "2", "-s"], stdin: .bytes(data))
        try #require(try await x.waitForNewOwner("SECONDARY", previous: before) != nil,
                     "xpb copy --loops 2 -s never took SECONDARY: \(command.result())")
        _ = try await x.convert("SECONDARY", "TARGETS")
        expectOutput(try await x.xclip(["-selection", "secondary", "-o"]), data)
        #expect(try await x.owner("SECONDARY") != 0, "still owned after the first of two pastes")
        expectOutput(try await x.xclip(["-selection", "secondary", "-o"]), data)
        let gone = await ProcessTable.waitUntilGone(tagged: harnessTagVariable, value: command.tag, timeout: .seconds(5))
        #expect(gone, "xpb copy --loops 2 must exit after the second paste")
        #expect(try await x.waitForNoOwner("SECONDARY", timeout: .seconds(3)), "no owner after the second paste")
        let result = await x.stop(command)
        #expect(result.status == 0 && !result.signaled, "\(result)")
    }

    @Test("xpb clear leaves CLIPBOARD without owner and ends the xpb server")
    func clearXpbOwner() async throws {
        let x = try XSession.require()
        let copy = try await x.xpb(["copy"], stdin: .pipe(Data("to be cleared".utf8)))
        expectSuccess(copy)
        #expect(try await x.owner("CLIPBOARD") != 0)

        let clear = try await x.xpb(["clear"])
        expectSuccess(clear, "xpb clear")
        #expect(clear.stdout.isEmpty)
        #expect(try await x.owner("CLIPBOARD") == 0, "CLIPBOARD must have no owner once xpb clear returns")
        let gone = await ProcessTable.waitUntilGone(tagged: harnessTagVariable, value: copy.tag, timeout: .seconds(5))
        #expect(gone, "the detached xpb server must exit once its selection is cleared")
        expectXpbError(try await x.xpb(["paste"]), status: 1, "paste after clear")
    }

    @Test("xpb clear -p ends a peer's ownership of PRIMARY")
    func clearPeerOwner() async throws {
        let x = try XSession.require()
        let owner = try await x.xclipOwner("primary", Data("xclip owns primary".utf8))
        let clear = try await x.xpb(["clear", "-p"])
        expectSuccess(clear, "xpb clear -p")
        #expect(try await x.owner("PRIMARY") == 0, "PRIMARY must have no owner once xpb clear -p returns")
        #expect(await owner.waitForExit(timeout: .seconds(5)), "xclip exits when it loses PRIMARY")
        await x.stop(owner)
        // Clearing what nobody owns is not an error.
        expectSuccess(try await x.xpb(["clear", "--selection", "XPB_E2E_NEVER_OWNED"]), "clear of an unowned selection")
    }

    @Test("--expire clears the selection after that time")
    func expire() async throws {
        let x = try XSession.require()
        let copy = try await x.xpb(["copy", "--expire", "1", "--selection", "XPB_E2E_EXPIRE"], stdin: .pipe(Data("brief".utf8)))
        expectSuccess(copy)
        #expect(try await x.owner("XPB_E2E_EXPIRE") != 0)
        expectOutput(try await x.xpb(["paste", "--selection", "XPB_E2E_EXPIRE"]), Data("brief".utf8))
        #expect(try await x.waitForNoOwner("XPB_E2E_EXPIRE", timeout: .seconds(6)), "--expire 1 must clear the selection")
        #expect(await ProcessTable.waitUntilGone(tagged: harnessTagVariable, value: copy.tag, timeout: .seconds(5)))
    }
}
