// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "xpb",
    products: [
        .library(name: "X11Pasteboard", targets: ["X11Pasteboard"]),
        .library(name: "UniformTypes", targets: ["UniformTypes"]),
        .executable(name: "xpb", targets: ["xpb"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
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
        .target(name: "X11Pasteboard", dependencies: ["CX11", "UniformTypes"]),
        .executableTarget(
            name: "xpb",
            dependencies: [
                "X11Pasteboard",
                "UniformTypes",
                "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(name: "UniformTypesTests", dependencies: ["UniformTypes"]),
        // What the Pasteboard documentation shows, built so that it keeps compiling; the tests
        // also run it as a writer that exits (the clipboard manager hand-off).
        .executableTarget(
            name: "pasteboard-example", dependencies: ["X11Pasteboard", "UniformTypes"], path: "Examples/PasteboardExample"),
        // A private Xvfb, child processes ended by pid, CPU-time probes: shared by the X test targets.
        .target(name: "XTestSupport", dependencies: ["CX11"], path: "Tests/XTestSupport"),
        .testTarget(name: "X11PasteboardTests", dependencies: ["X11Pasteboard", "UniformTypes", "CX11", "XTestSupport"]),
        .testTarget(
            name: "xpbTests",
            dependencies: ["xpb", "X11Pasteboard", "UniformTypes", "XTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
    ]
)

for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
