// swift-tools-version:6.0
// Tickerboard: a stock-ticker appliance daemon that draws straight to a Linux display.
// Layers point one way: C shims <- Raster / Text <- Chart <- KioskCore <- Kiosk <- Commands <- tickerboard (see README).
// The fetcher is a separate stack: CCurl + Feed + LinuxIO <- Fetch <- tickerboard-fetch. Only it
// links libcurl; the display daemon links no network code.
import PackageDescription

#if canImport(Glibc)
import Glibc
#endif

// `TICKERBOARD_FUZZ=1 swift build --build-path .build/fuzz -c release` (see Tests/fuzz.sh) adds one
// libFuzzer executable per input entry point and builds every Swift module with coverage and
// AddressSanitizer, and with testing enabled so a harness can reach internal parsers. Without the
// variable the package is exactly the appliance build.
let fuzzing = Context.environment["TICKERBOARD_FUZZ"] == "1"
let fuzzFlags: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-enable-testing"])] : []

// Pixel loops are 100-500x slower unoptimised; tests would crawl in debug builds otherwise.
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))] + fuzzFlags

let package = Package(
    name: "Tickerboard",
    products: [
        .executable(name: "tickerboard", targets: ["tickerboard"]),
        .executable(name: "tickerboard-fetch", targets: ["tickerboard-fetch"]),
        .executable(name: "tickerboard-mqtt", targets: ["tickerboard-mqtt"]),
    ],
    targets: [
        // MARK: C system libraries (module.modulemap + shim.h)
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CLibinput", pkgConfig: "libinput", providers: [.apt(["libinput-dev", "libudev-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // HTTP(S) for the fetcher only (TLS, proxies, HTTP/2, timeouts, bounded redirects).
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // epoll, timerfd, signalfd, inotify: glibc has them, the Glibc module does not export them.
        .systemLibrary(name: "CLinux"),
        // Streaming (cache-bypassing) stores for the rasterizer's widest fills; header only.
        .systemLibrary(name: "CRaster"),

        // MARK: Swift modules
        // Pure Swift, but Double.rounded() and friends call into libm.
        .target(name: "Raster", dependencies: ["CRaster"], swiftSettings: optimisedInDebug, linkerSettings: [.linkedLibrary("m")]),
        .target(name: "Text", dependencies: ["CFreeType", "LinuxIO", "Raster"], swiftSettings: optimisedInDebug),
        // Thin typed wrappers over the Linux syscalls the daemon uses (errno -> Errno, fd ownership).
        .target(name: "LinuxIO", dependencies: ["CLinux"], swiftSettings: fuzzFlags),
        .target(name: "Feed", dependencies: ["LinuxIO", "StatusModel"], swiftSettings: fuzzFlags),
        .target(name: "Chart", dependencies: ["Raster", "Text", "Feed"], swiftSettings: optimisedInDebug),
        // The values and decisions of a display and of touch input, with no device behind them (what
        // a config names, frame pacing, gestures), so the core can use them without linking I/O.
        .target(name: "DisplayModel", swiftSettings: fuzzFlags),
        .target(name: "InputModel", swiftSettings: fuzzFlags),
        // The control socket's protocol and per-connection limits, pure: the daemon's core answers it,
        // `tickerboard ctl` and the MQTT bridge speak it. StatusModel for the scenes' names (SceneKind).
        .target(name: "Control", dependencies: ["CVersion", "StatusModel"], swiftSettings: fuzzFlags),
        // The status contract (status.json, `ctl status`), one Codable type with a JSON coder of its
        // own: the daemon writes it without Foundation, the bridge reads it without the display stack.
        // Double.rounded() calls into libm.
        .target(name: "StatusModel", swiftSettings: fuzzFlags, linkerSettings: [.linkedLibrary("m")]),
        // The version, in an ELF section of its own that packaging can stamp (version.c).
        .target(name: "CVersion"),
        // MQTT (Debian's libmosquitto) for the Home Assistant bridge only; the daemon never links it.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .target(name: "Display", dependencies: ["CDRM", "CLinux", "CPNG", "CRaster", "DisplayModel", "LinuxIO", "Raster"], swiftSettings: fuzzFlags),
        .target(name: "Input", dependencies: ["CLibinput", "CLinux", "InputModel", "LinuxIO"], swiftSettings: fuzzFlags),
        // The kiosk's decisions: config, cycling, scrubbing, screen power, what each frame shows. No
        // I/O module is a dependency (time and events come in as values); SwiftPM would still let a
        // file import a built one, so SourceRulesTests checks the imports.
        .target(name: "KioskCore", dependencies: ["Raster", "Text", "Feed", "Chart", "DisplayModel", "InputModel", "Control", "StatusModel"], swiftSettings: fuzzFlags),
        // The shell around the core: event loop, display and renderer, input, data files, systemd.
        .target(name: "Kiosk", dependencies: ["KioskCore", "Control", "StatusModel", "Raster", "Text", "Feed", "Chart", "Display", "DisplayModel", "Input", "InputModel", "LinuxIO", "CLinux"], swiftSettings: fuzzFlags),
        // The `tickerboard` commands: run (the shell), render, bench, check-config, display-check, …
        .target(name: "Commands", dependencies: ["Kiosk", "KioskCore", "Control", "StatusModel", "Raster", "Text", "Feed", "Chart", "Display", "DisplayModel", "Input", "InputModel", "LinuxIO"], swiftSettings: fuzzFlags),
        // Full RELRO (with the default -z relro): the dynamic symbols are bound at start and the
        // GOT is read-only afterwards; the shipped daemon is hardened like Debian's own binaries.
        .executableTarget(name: "tickerboard", dependencies: ["Commands"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"])]),
        // The network side: provider adapters, request budget, merge-and-replace of the data files.
        .target(name: "Fetch", dependencies: ["CCurl", "Feed", "LinuxIO", "CLinux"], swiftSettings: fuzzFlags),
        .executableTarget(name: "tickerboard-fetch", dependencies: ["Fetch", "Control"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"])]),
        // The Home Assistant bridge: MQTT discovery and commands on one side, the daemon's control
        // socket on the other. A process of its own, so the display daemon stays without network.
        .target(name: "Bridge", dependencies: ["CMosquitto", "Control", "Feed", "LinuxIO", "StatusModel"], swiftSettings: fuzzFlags),
        .executableTarget(name: "tickerboard-mqtt", dependencies: ["Bridge", "Control"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"])]),

        // MARK: Tests (Swift Testing only: run with --disable-xctest)
        .target(name: "TestSupport", dependencies: ["Raster", "Display"], path: "Tests/TestSupport"),
        // The core's test driver: the core and its models, no shell, no display, no file (issue 51).
        .target(name: "CoreDriver", dependencies: ["KioskCore", "Control", "StatusModel", "Chart", "Feed", "Text", "DisplayModel", "InputModel"],
                path: "Tests/CoreDriver"),
        // The core's tests, beside its driver: they build and run without the shell.
        .testTarget(name: "KioskCoreTests", dependencies: ["CoreDriver", "KioskCore", "StatusModel", "Control", "Chart", "Feed", "Text", "Raster",
                                                           "DisplayModel", "InputModel"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "Display", "Feed", "TestSupport"], swiftSettings: optimisedInDebug),
        .testTarget(name: "TextTests", dependencies: ["Text", "Raster", "Display", "TestSupport"]),
        .testTarget(name: "LinuxIOTests", dependencies: ["LinuxIO"]),
        .testTarget(name: "ControlTests", dependencies: ["Control", "LinuxIO", "Bridge", "StatusModel"]),
        .testTarget(name: "StatusModelTests", dependencies: ["StatusModel", "Bridge"]),
        .testTarget(name: "InputTests", dependencies: ["Input", "InputModel", "LinuxIO", "Raster"]),
        .testTarget(name: "FeedTests", dependencies: ["Feed"]),
        .testTarget(name: "ChartTests", dependencies: ["Chart", "Feed", "Raster", "Display", "TestSupport"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "DisplayModel", "Raster", "TestSupport"]),
        .testTarget(name: "FetchTests", dependencies: ["Fetch", "Feed", "Bridge", "Chart", "Text", "TestSupport"],
                    exclude: ["replay_server.py", "Fixtures"]),
        .testTarget(name: "KioskTests", dependencies: ["CoreDriver", "Commands", "Control", "Kiosk", "KioskCore", "StatusModel", "Chart", "Feed", "Display", "DisplayModel", "InputModel", "TestSupport"]),
    ]
)

// MARK: Fuzz harnesses (only with TICKERBOARD_FUZZ=1): Tests/Fuzz/<name>/main.swift
if fuzzing {
    let harnesses: [(String, [Target.Dependency])] = [
        ("fuzz-csv", ["Feed"]),
        ("fuzz-scenes", ["Feed", "Chart", "Text", "Raster"]),
        ("fuzz-config", ["Commands", "Kiosk", "KioskCore", "StatusModel", "Chart", "Feed", "Input", "InputModel", "Display", "DisplayModel", "Text"]),
        ("fuzz-timezone", ["Feed"]),
        ("fuzz-records", ["LinuxIO"]),
        ("fuzz-format", ["Text", "Chart"]),
        ("fuzz-gestures", ["Input", "InputModel"]),
        ("fuzz-providers", ["Fetch", "Feed"]),
        ("fuzz-fetch", ["Fetch", "Feed", "Chart"]),
        ("fuzz-control", ["Control"]),
        ("fuzz-bridge", ["Bridge", "Control", "StatusModel"]),
    ]
    for (name, dependencies) in harnesses {
        package.targets.append(.executableTarget(
            name: name, dependencies: dependencies + ["FuzzSupport"], path: "Tests/Fuzz/\(name)",
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]))
    }
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["Feed"], path: "Tests/Fuzz/FuzzSupport", swiftSettings: fuzzFlags))
}
