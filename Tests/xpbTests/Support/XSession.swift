import Foundation
import XTestSupport
import Glibc
import Testing

// End-to-end tests of the `xpb` command against a real X server and real peers.
//
// Run: `swift test --filter xpbTests` (needs Xvfb, xclip, xsel, and cc with libx11-dev for the
// test requestor; a missing tool fails the suite with its name). The binary is the `xpb` next
// to the test bundle; `XPB_PRODUCT_XPB=/path/to/xpb` overrides it.
//
// Each suite marked `.xServer` gets its own Xvfb on a display it picks itself (-displayfd); every
// process a test starts carries XPB_E2E_SUITE/XPB_E2E_TAG in its environment, so that servers
// which detach (xpb copy, xclip -i) are found and ended by process id when the suite ends.

/// Everything one suite needs: its own Xvfb, the tools, the probe, and the processes it started.
final class XSession: @unchecked Sendable {
    @TaskLocal static var current: XSession?

    /// The session of the running suite (see the `.xServer` trait).
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> XSession {
        try #require(current, "this test must run inside a suite marked `.xServer`", sourceLocation: sourceLocation)
    }

    let server: XvfbServer
    let suiteID = UUID().uuidString
    let xpbPath: String
    let xclipPath: String
    let xselPath: String
    let probePath: String
    private let workDirectory: URL
    private let lock = NSLock()
    private var spawned: [Spawned] = []

    var display: String { server.displayName }

    private init(server: XvfbServer, xpb: String, xclip: String, xsel: String, probe: String, workDirectory: URL) {
        self.server = server
        self.xpbPath = xpb
        self.xclipPath = xclip
        self.xselPath = xsel
        self.probePath = probe
        self.workDirectory = workDirectory
    }

    static func start() async throws -> XSession {
        let xpb = try Tools.product("xpb")
        let xclip = try Tools.required("xclip", package: "xclip")
        let xsel = try Tools.required("xsel", package: "xsel")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("xpb-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let probe: String
        let server: XvfbServer
        do {
            probe = try await Probe.build(into: directory)
            server = try XvfbServer.start()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let session = XSession(server: server, xpb: xpb, xclip: xclip, xsel: xsel, probe: probe, workDirectory: directory)
        // xsel looks UTF8_STRING up with only_if_exists: make sure the atoms exist on this fresh
        // server (-noreset keeps them), so xsel offers UTF8_STRING like it does on a desktop.
        let initialised = try await session.probe(["init"])
        guard initialised.status == 0 else {
            session.server.stop()
            throw HarnessError.failed("the test requestor cannot talk to \(session.display): \(initialised)")
        }
        return session
    }

    /// Ends every process the suite started (tracked ones, then anything that detached and still
    /// carries the suite's tag), the Xvfb, and removes the scratch files.
    func end() async {
        let all: [Spawned] = lock.withLock {
            defer { spawned.removeAll() }
            return spawned
        }
        for process in all { await process.stop(grace: .milliseconds(500)) }
        await ProcessTable.end(tagged: harnessSuiteVariable, value: suiteID)
        server.stop()
        // Servers that detached exit when their X connection goes; make sure of it.
        await ProcessTable.end(tagged: harnessSuiteVariable, value: suiteID)
        try? FileManager.default.removeItem(at: workDirectory)
    }

    // MARK: Files

    /// Writes `data` to a fresh file in the suite's scratch directory.
    func file(_ name: String, _ data: Data) throws -> URL {
        let directory = workDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    // MARK: Running commands

    private func environmentDisplay(_ display: DisplayEnvironment) -> String? {
        switch display {
        case .suite: self.display
        case .value(let value): value
        case .unset: nil
        }
    }

    func run(
        _ executable: String, _ arguments: [String], stdin: Stdin = .none,
        display: DisplayEnvironment = .suite, timeout: Duration = .seconds(20)
    ) async throws -> RunResult {
        try await Command.run(
            executable, arguments, stdin: stdin, display: environmentDisplay(display), suiteID: suiteID, timeout: timeout)
    }

    func xpb(
        _ arguments: [String], stdin: Stdin = .none, display: DisplayEnvironment = .suite,
        timeout: Duration = .seconds(20)
    ) async throws -> RunResult {
        try await run(xpbPath, arguments, stdin: stdin, display: display, timeout: timeout)
    }

    func xclip(_ arguments: [String], stdin: Stdin = .none, timeout: Duration = .seconds(20)) async throws -> RunResult {
        try await run(xclipPath, arguments, stdin: stdin, timeout: timeout)
    }

    func xsel(_ arguments: [String], stdin: Stdin = .none, timeout: Duration = .seconds(20)) async throws -> RunResult {
        try await run(xselPath, arguments, stdin: stdin, timeout: timeout)
    }

    func probe(_ arguments: [String], timeout: Duration = .seconds(15)) async throws -> RunResult {
        try await run(probePath, arguments, timeout: timeout)
    }

    /// Starts a long-running command (an owner) that the suite ends at the latest when it finishes.
    func spawn(
        _ executable: String, _ arguments: [String], stdin: Stdin = .none, display: DisplayEnvironment = .suite
    ) throws -> Spawned {
        let process = try Command.spawn(
            executable, arguments, stdin: stdin, display: environmentDisplay(display), suiteID: suiteID)
        lock.withLock { spawned.append(process) }
        return process
    }

    /// Stops a spawned process and forgets it.
    @discardableResult
    func stop(_ process: Spawned) async -> RunResult {
        let result = await process.stop()
        lock.withLock { spawned.removeAll { $0 === process } }
        return result
    }

    // MARK: Selection state, seen through the probe

    /// The owner window of `selection`, 0 for None.
    func owner(_ selection: String) async throws -> UInt {
        let result = try await probe(["owner", selection])
        let text = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, text.hasPrefix("0x"), let value = UInt(text.dropFirst(2), radix: 16) else {
            throw HarnessError.failed("probe owner \(selection) failed: \(result)")
        }
        return value
    }

    /// Waits until `selection` has an owner other than `previous`; returns it, or nil after `timeout`.
    func waitForNewOwner(_ selection: String, previous: UInt, timeout: Duration = .seconds(10)) async throws -> UInt? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let owner = try await owner(selection)
            if owner != 0 && owner != previous { return owner }
            if ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until `selection` has no owner; true when it happened within `timeout`.
    func waitForNoOwner(_ selection: String, timeout: Duration = .seconds(10)) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if try await owner(selection) == 0 { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The X server's current time (ms), from a zero-length property append.
    func serverTime() async throws -> UInt {
        let result = try await probe(["time"])
        guard result.status == 0, let time = UInt(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError.failed("probe time failed: \(result)")
        }
        return time
    }

    func convert(_ selection: String, _ target: String) async throws -> Probe.Reply {
        Probe.parseConvert(try await probe(["convert", selection, target]))
    }

    /// The TARGETS list as the probe received it; throws when the owner does not answer TARGETS.
    func targets(_ selection: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let reply = try await convert(selection, "TARGETS")
        let value = try #require(reply.value, "TARGETS of \(selection): \(reply)", sourceLocation: sourceLocation)
        #expect(value.type == "ATOM" && value.format == 32,
                "TARGETS reply must be type ATOM, format 32; got \(value)", sourceLocation: sourceLocation)
        return value.words
    }

    func multiple(_ selection: String) async throws -> Probe.MultipleReply {
        Probe.parseMultiple(try await probe(["multiple", selection]))
    }

    // MARK: Peer owners

    /// Starts `xclip -quiet -i` (stays in the foreground) owning `selection` with `data`, and
    /// waits until it owns it.
    func xclipOwner(
        _ selection: String, _ data: Data, target: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Spawned {
        let before = try await owner(selection.uppercased())
        var arguments = ["-quiet", "-selection", selection.lowercased()]
        if let target { arguments += ["-t", target] }
        arguments += ["-i"]
        let process = try spawn(xclipPath, arguments, stdin: .bytes(data))
        try await requireOwner(selection.uppercased(), previous: before, by: process, sourceLocation: sourceLocation)
        return process
    }

    /// Starts `xsel --nodetach -i` owning `selection` (`-b`, `-p` or `-s`) with `data`, and waits
    /// until it owns it.
    func xselOwner(_ flag: String, _ data: Data, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Spawned {
        let selection = ["-b": "CLIPBOARD", "-p": "PRIMARY", "-s": "SECONDARY"][flag] ?? flag
        let before = try await owner(selection)
        let process = try spawn(xselPath, ["--nodetach", flag, "-i"], stdin: .bytes(data))
        try await requireOwner(selection, previous: before, by: process, sourceLocation: sourceLocation)
        return process
    }

    private func requireOwner(
        _ selection: String, previous: UInt, by process: Spawned, sourceLocation: SourceLocation
    ) async throws {
        if try await waitForNewOwner(selection, previous: previous) == nil {
            let result = await stop(process)
            Issue.record("\(result.command) did not take \(selection) within 10 s: \(result)", sourceLocation: sourceLocation)
            throw HarnessError.failed("owner did not start")
        }
    }
}

/// Gives a suite its own Xvfb (started before its first test, ended after its last, with every
/// process the suite started).
struct XServerTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if XSession.current != nil {
            try await function()
            return
        }
        let session = try await XSession.start()
        do {
            try await XSession.$current.withValue(session) { try await function() }
        } catch {
            await session.end()
            throw error
        }
        await session.end()
    }
}

extension Trait where Self == XServerTrait {
    /// A private Xvfb for this suite.
    static var xServer: Self { Self() }
}
