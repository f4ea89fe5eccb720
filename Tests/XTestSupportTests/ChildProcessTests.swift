import Foundation
import Glibc
import Testing
import XTestSupport

/// What `ChildProcess` promises every child, whichever way it starts it (`init` runs on with
/// posix_spawn, `run` goes through swift-subprocess).
@Suite(.timeLimit(.minutes(1))) struct ChildProcessTests {
    enum Start: String, CaseIterable, CustomTestStringConvertible {
        case spawned, run
        var testDescription: String { rawValue }
    }

    /// Runs a shell script to its end the `start` way.
    private func shell(_ script: String, _ start: Start, options: ChildProcess.Options = .init()) async throws -> ChildProcess {
        switch start {
        case .run:
            return try await ChildProcess.run("/bin/sh", ["-c", script], options: options)
        case .spawned:
            let child = try ChildProcess("/bin/sh", ["-c", script], options: options)
            #expect(await child.waitForExit(timeout: .seconds(10)) != nil, "\(child.command) did not exit")
            return child
        }
    }

    /// The fields of /proc/PID/status the child reports about itself.
    private func status(_ child: ChildProcess) -> [String: String] {
        var fields: [String: String] = [:]
        for line in child.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return fields
    }

    @Test(arguments: Start.allCases)
    func noSignalBlockedOrIgnored(_ start: Start) async throws {
        // The runner ignores SIGPIPE and its threads block signals; none of it reaches the child.
        let child = try await shell("exec grep -E '^(SigBlk|SigIgn):' /proc/self/status", start)
        let fields = status(child)
        #expect(fields["SigBlk"].map { UInt64($0, radix: 16) } == 0, "\(child.stdoutText)")
        // glibc's posix_spawn leaves its two internal signals (32 and 33, which nobody sends)
        // ignored; every other signal has its default action.
        #expect(fields["SigIgn"].map { UInt64($0, radix: 16)! & ~0x1_8000_0000 } == 0, "\(child.stdoutText)")
    }

    @Test(arguments: Start.allCases)
    func inheritsNoDescriptorBeyondTheStandardThree(_ start: Start) async throws {
        // A descriptor without close-on-exec, as a careless library would leave one.
        let leaky = open("/dev/null", O_RDONLY)
        try #require(leaky > 2)
        defer { close(leaky) }
        // ls lists the descriptors of the shell, which opens none of its own (`; true` keeps the
        // shell from becoming ls).
        let child = try await shell("ls /proc/$$/fd; true", start)
        #expect(child.stdoutText == "0\n1\n2\n", "descriptors of the \(start) child: \(child.stdoutText)")
    }

    @Test(arguments: Start.allCases)
    func ownProcessGroup(_ start: Start) async throws {
        let child = try await shell("cut -d' ' -f5 /proc/$$/stat", start)
        #expect(Int32(child.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) == child.pid, "\(child.stdoutText)")
        #expect(child.pid != getpgrp())
    }

    @Test(arguments: Start.allCases)
    func environmentStdinAndWorkingDirectory(_ start: Start) async throws {
        // PATH is removed (setenv here would race with the other tests reading the environment).
        try #require(ProcessInfo.processInfo.environment["PATH"] != nil)
        let options = ChildProcess.Options(
            environment: ["XPB_CHILD_TEST": "set"], unsetting: ["PATH"], stdin: .bytes(Data("input".utf8)),
            workingDirectory: "/tmp")
        let child = try await shell(
            #"/usr/bin/env; printf '%s|' "$(pwd)"; /bin/cat; echo err >&2"#, start, options: options)
        let lines = child.stdoutText.split(separator: "\n")
        #expect(lines.contains("XPB_CHILD_TEST=set") && lines.contains("LC_ALL=C.UTF-8"), "\(child.stdoutText)")
        #expect(!lines.contains { $0.hasPrefix("PATH=") }, "\(child.stdoutText)")
        #expect(lines.last == "/tmp|input", "\(child.stdoutText)")
        #expect(child.stderrText == "err\n")
        #expect(child.termination == .exited(0))
    }

    @Test(arguments: Start.allCases)
    func exitStatusAndSignal(_ start: Start) async throws {
        let exited = try await shell("exit 3", start)
        #expect(exited.termination == .exited(3) && exited.status == 3)
        let killed = try await shell("kill -TERM $$", start)
        #expect(killed.termination == .signaled(SIGTERM) && killed.status == 128 + SIGTERM)
    }

    @Test func runIsNotHeldUpByAChildThatKeepsItsOutput() async throws {
        // The shell leaves a process behind that holds stdout and stderr for 5 s.
        let started = ContinuousClock.now
        let child = try await ChildProcess.run("/bin/sh", ["-c", "sleep 5 & echo $!"])
        #expect(ContinuousClock.now - started < .seconds(4.5), "the leftover holds the pipes for 5 s")
        #expect(child.termination == .exited(0))
        let leftover = try #require(Int32(child.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(leftover, SIGTERM)
    }

    @Test func runEndsACommandThatOutlivesItsTimeout() async throws {
        let started = ContinuousClock.now
        let child = try await ChildProcess.run(
            "/bin/sh", ["-c", "trap '' TERM; exec sleep 10"], options: .init(), timeout: .milliseconds(200), grace: .milliseconds(200))
        #expect(child.timedOut)
        #expect(child.termination == .signaled(SIGKILL), "it ignores SIGTERM: \(String(describing: child.termination))")
        #expect(ContinuousClock.now - started < .seconds(8), "the command sleeps 10 s: it was not cut short")
        let polite = try await ChildProcess.run("/bin/sleep", ["10"], options: .init(), timeout: .milliseconds(200))
        #expect(polite.timedOut && polite.termination == .signaled(SIGTERM))
    }

    @Test func spawnedChildIsEndedByItsPid() async throws {
        let child = try ChildProcess("/bin/sleep", ["10"])
        #expect(child.isRunning)
        #expect(await child.stop(grace: .seconds(1)) == .signaled(SIGTERM))
        #expect(!child.signal(SIGTERM), "no signal once it has been reaped")
        let stubborn = try ChildProcess("/bin/sh", ["-c", "trap '' TERM; echo ready; exec sleep 10"])
        #expect(await stubborn.waitForLines(1, timeout: .seconds(5)) == ["ready"])
        stubborn.terminate(grace: .milliseconds(100))
        #expect(stubborn.termination == .signaled(SIGKILL))
    }

    @Test func startingAMissingProgramThrows() async throws {
        #expect(throws: TestSupportError.self) { try ChildProcess("/nonexistent/program", []) }
        await #expect(throws: TestSupportError.self) { try await ChildProcess.run("/nonexistent/program", []) }
    }
}
