// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "xpb",
    products: [
        .library(name: "X11Pasteboard", targets: ["X11Pasteboard"]),
        .library(name: "UniformTypes", targets: ["UniformTypes"]),
        .library(name: "ClipboardHistory", targets: ["ClipboardHistory"]),
        .executable(name: "xpb", targets: ["xpb"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        // FileDescriptor and Errno for the engine and the CLI (the URL Subprocess names it by).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Tests only: runs the commands the tests run to completion.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        // `make docs`: DocC for X11Pasteboard and UniformTypes (swift package generate-documentation).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Xlib + XFixes as installed by the system. `link` lines in the module map make the build
        // independent of pkg-config; pkgConfig adds search paths where it is installed.
        .systemLibrary(
            name: "CX11",
            path: "Modules/CX11",
            pkgConfig: "x11 xfixes",
            providers: [.apt(["libx11-dev", "libxfixes-dev"])]
        ),
        // libc declarations that Swift's Glibc module leaves out (malloc.h, glibc's GNU extensions).
        .target(name: "CSystemShims"),
        .target(name: "UniformTypes", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "X11Pasteboard",
            dependencies: ["CX11", "CSystemShims", "UniformTypes", .product(name: "SystemPackage", package: "swift-system")]),
        // SQLite as the system installs it, for the history (FTS5 and WAL are in Debian's build).
        .systemLibrary(name: "CSQLite", path: "Modules/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The history of the clipboard on disk: snapshots in SQLite, large ones as files beside it.
        .target(name: "ClipboardHistory", dependencies: ["CSQLite", "X11Pasteboard", "UniformTypes"]),
        .executableTarget(
            name: "xpb",
            dependencies: [
                "X11Pasteboard",
                "ClipboardHistory",
                "UniformTypes",
                "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(name: "UniformTypesTests", dependencies: ["UniformTypes"]),
        // Records into a history: in a loop until killed (the crash-safety tests), or N entries
        // (the benchmark's history).
        .executableTarget(name: "history-writer", dependencies: ["ClipboardHistory", "X11Pasteboard"], path: "Tests/HistoryWriter"),
        .testTarget(
            name: "ClipboardHistoryTests",
            dependencies: ["ClipboardHistory", "X11Pasteboard", "UniformTypes", "XTestSupport", "history-writer"]),
        // What the Pasteboard documentation shows, built so that it keeps compiling; the tests
        // also run it as a writer that exits (the clipboard manager hand-off).
        .executableTarget(
            name: "pasteboard-example", dependencies: ["X11Pasteboard", "UniformTypes"], path: "Examples/PasteboardExample"),
        // The glibc posix_spawn extensions the Glibc module does not import (tests only).
        .target(name: "CTestShims", path: "Tests/CTestShims"),
        // The one process spawner of the tests, a private Xvfb, CPU-time probes: shared by the
        // test targets.
        .target(
            name: "XTestSupport",
            dependencies: [
                "CX11", "CTestShims",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/XTestSupport"),
        .testTarget(name: "XTestSupportTests", dependencies: ["XTestSupport"]),
        .testTarget(name: "X11PasteboardTests", dependencies: ["X11Pasteboard", "UniformTypes", "CX11", "XTestSupport"]),
        .testTarget(
            name: "xpbTests",
            dependencies: ["xpb", "X11Pasteboard", "UniformTypes", "ClipboardHistory", "XTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
    ]
)

for target in package.targets where [.executable, .test, .regular].contains(target.type) && target.name != "CTestShims" {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
