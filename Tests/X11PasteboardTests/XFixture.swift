import Foundation
import Testing
@testable import X11Pasteboard
import XTestSupport

/// A display for one suite, with xclip as the other party. The server lives as long as the test
/// process (the pasteboards' connections do too), so suites never share CLIPBOARD or PRIMARY.
struct XFixture: Sendable {
    let server: XvfbServer
    let xclip: String

    var display: String { server.displayName }

    init() throws {
        xclip = try Tools.required("xclip", package: "xclip")
        server = try XvfbServer.start(endsWithThisProcess: true)
    }

    /// The pasteboard `name` of this display.
    func pasteboard(_ name: Pasteboard.Name) -> Pasteboard {
        Pasteboard(name: name, create: true, displayName: display)!
    }

    /// `xclip -i` in the foreground (`-quiet`), owning `selection` until it is ended or loses it.
    /// Returns once the selection is its (the pasteboard counted the change).
    func xclipCopy(
        _ data: Data, selection: String = "clipboard", type: String? = nil, on pasteboard: Pasteboard,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ChildProcess {
        let before = pasteboard.changeCount
        let arguments = ["-quiet", "-i", "-selection", selection] + (type.map { ["-t", $0] } ?? [])
        let child = try ChildProcess(xclip, arguments, environment: ["DISPLAY": display], stdin: data)
        let owned = await eventually { pasteboard.changeCount > before }
        #expect(owned, "xclip did not take \(selection): \(child.stderrText)", sourceLocation: sourceLocation)
        return child
    }

    /// `xclip -o`: the bytes and exit status.
    func xclipPaste(selection: String = "clipboard", type: String? = nil) async throws -> (status: Int32?, data: Data) {
        let arguments = ["-o", "-selection", selection] + (type.map { ["-t", $0] } ?? [])
        let child = try await ChildProcess.run(xclip, arguments, environment: ["DISPLAY": display], timeout: .seconds(10))
        return (child.status, child.stdout)
    }

    /// The targets xclip sees.
    func xclipTargets(selection: String = "clipboard") async throws -> [String] {
        let (_, data) = try await xclipPaste(selection: selection, type: "TARGETS")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes (tests only: the library
/// itself never polls).
func eventually(timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

/// The next element of a stream, or nil after `timeout`.
func next<T: Sendable>(_ iterator: inout AsyncStream<T>.Iterator, timeout: Duration = .seconds(5)) async -> T? {
    let box = IteratorBox(iterator)
    let result = await withTaskGroup(of: T?.self) { group in
        group.addTask { await box.next() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    iterator = box.iterator
    return result
}

private final class IteratorBox<T: Sendable>: @unchecked Sendable {
    var iterator: AsyncStream<T>.Iterator
    init(_ iterator: AsyncStream<T>.Iterator) { self.iterator = iterator }
    func next() async -> T? { await iterator.next() }
}
