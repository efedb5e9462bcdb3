// Helpers shared by the Text tests: the DejaVu fonts CI installs, scratch files, pixel diffs.
import Raster
import Text

#if canImport(Glibc)
import Glibc
#endif

enum TestFonts {
    static let regularPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let boldPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

    /// A fresh face per test: faces are not Sendable and Swift Testing runs tests in parallel.
    static func regular() throws -> FontFace { try FontFace(path: regularPath) }
}

/// A path in /tmp unique to this process and name.
func scratchPath(_ name: String) -> String { "/tmp/tb-text-test-\(getpid())-\(name)" }

/// Writes `bytes` to `path`, replacing it.
func writeFile(_ path: String, _ bytes: [UInt8]) {
    let file = fopen(path, "wb")!
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

/// The first `count` bytes of a file.
func readPrefix(_ path: String, count: Int) -> [UInt8] {
    let file = fopen(path, "rb")!
    var bytes = [UInt8](repeating: 0, count: count)
    let read = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, file) }
    fclose(file)
    return Array(bytes.prefix(read))
}

/// The rectangle of pixels that differ between two same-sized buffers, and how many differ.
func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (bounds: IntRect, count: Int) {
    var bounds = IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
    var count = 0
    for y in 0..<a.height {
        for x in 0..<a.width where a[x, y] != b[x, y] {
            count += 1
            bounds = bounds.union(IntRect(x: x, y: y, width: 1, height: 1))
        }
    }
    return (bounds, count)
}

/// A dark canvas like the chart's background.
func canvas(_ width: Int = 320, _ height: Int = 120) -> PixelBuffer {
    PixelBuffer(width: width, height: height, fill: 0xFF0D_1117)
}

let white = Color(rgb: 0xFFFFFF)
