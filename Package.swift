// swift-tools-version:6.0
// Tickerboard: a stock-ticker appliance daemon that draws straight to a Linux display.
// Layers point one way: C shims <- Raster / Text <- Chart <- Kiosk <- tickerboard (see README).
// The fetcher is a separate stack: CCurl + Feed + LinuxIO <- Fetch <- tickerboard-fetch. Only it
// links libcurl; the display daemon links no network code.
import PackageDescription

// Pixel loops are 100-500x slower unoptimised; tests would crawl in debug builds otherwise.
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "Tickerboard",
    products: [
        .executable(name: "tickerboard", targets: ["tickerboard"]),
        .executable(name: "tickerboard-fetch", targets: ["tickerboard-fetch"]),
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

        // MARK: Swift modules
        // Pure Swift, but Double.rounded() and friends call into libm.
        .target(name: "Raster", swiftSettings: optimisedInDebug, linkerSettings: [.linkedLibrary("m")]),
        .target(name: "Text", dependencies: ["CFreeType", "Raster"], swiftSettings: optimisedInDebug),
        // Thin typed wrappers over the Linux syscalls the daemon uses (errno -> Errno, fd ownership).
        .target(name: "LinuxIO", dependencies: ["CLinux"]),
        .target(name: "Feed", dependencies: ["LinuxIO"]),
        .target(name: "Chart", dependencies: ["Raster", "Text", "Feed"], swiftSettings: optimisedInDebug),
        .target(name: "Display", dependencies: ["CDRM", "CLinux", "CPNG", "LinuxIO", "Raster"]),
        .target(name: "Input", dependencies: ["CLibinput", "CLinux", "LinuxIO"]),
        .target(name: "Kiosk", dependencies: ["Raster", "Text", "Feed", "Chart", "Display", "Input", "LinuxIO", "CLinux"]),
        // Full RELRO (with the default -z relro): the dynamic symbols are bound at start and the
        // GOT is read-only afterwards; the shipped daemon is hardened like Debian's own binaries.
        .executableTarget(name: "tickerboard", dependencies: ["Kiosk"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"])]),
        // The network side: provider adapters, request budget, merge-and-replace of the data files.
        .target(name: "Fetch", dependencies: ["CCurl", "Feed", "LinuxIO", "CLinux"]),
        .executableTarget(name: "tickerboard-fetch", dependencies: ["Fetch"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"])]),

        // MARK: Tests (Swift Testing only: run with --disable-xctest)
        .target(name: "TestSupport", dependencies: ["Raster", "Display"], path: "Tests/TestSupport"),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "Display", "TestSupport"], swiftSettings: optimisedInDebug),
        .testTarget(name: "TextTests", dependencies: ["Text", "Raster", "Display", "TestSupport"]),
        .testTarget(name: "LinuxIOTests", dependencies: ["LinuxIO"]),
        .testTarget(name: "InputTests", dependencies: ["Input", "LinuxIO", "Raster"]),
        .testTarget(name: "FeedTests", dependencies: ["Feed"]),
        .testTarget(name: "ChartTests", dependencies: ["Chart", "Feed", "Raster", "Display", "TestSupport"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "Raster", "TestSupport"]),
        .testTarget(name: "FetchTests", dependencies: ["Fetch", "Feed"], exclude: ["replay_server.py"]),
        .testTarget(name: "KioskTests", dependencies: ["Kiosk", "Chart", "Feed", "Display", "TestSupport"]),
    ]
)
