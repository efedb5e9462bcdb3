// TestSupport: helpers shared by the test targets: golden-image comparison with a heat map on
// failure, locating the repository and ../shared, and a manual clock for animations.
import Display
import DisplayModel
import Raster

#if canImport(Glibc)
import Glibc
#endif

/// How far two frames are apart, channel by channel (R, G, B; alpha is ignored on a display).
public struct ImageDifference: CustomStringConvertible, Sendable {
    public var maxDifference = 0
    public var pixelsOverThreshold = 0
    public var pixelCount = 0
    public var psnr = Double.infinity
    public var threshold = 8

    public var fractionOverThreshold: Double { pixelCount == 0 ? 0 : Double(pixelsOverThreshold) / Double(pixelCount) }

    public var description: String {
        let pct = (fractionOverThreshold * 100_000).rounded() / 1000
        return "max \(maxDifference), \(pixelsOverThreshold) px (\(pct) %) over \(threshold), PSNR \(psnr) dB"
    }
}

public enum ImageComparison {
    /// Compares two equally sized buffers inside `region` (default: everything).
    /// A size mismatch is reported as the worst possible difference.
    public static func compare(_ a: PixelBuffer, _ b: PixelBuffer, threshold: Int = 8,
                               region: IntRect? = nil) -> ImageDifference {
        var d = ImageDifference()
        d.threshold = threshold
        guard a.width == b.width, a.height == b.height else {
            d.maxDifference = 255; d.psnr = 0; d.pixelCount = 1; d.pixelsOverThreshold = 1
            return d
        }
        let r = (region ?? a.bounds).intersection(a.bounds)
        var squared = 0.0
        for y in r.y0..<r.y1 {
            for x in r.x0..<r.x1 {
                let p = a[x, y], q = b[x, y]
                var worst = 0
                for shift in [0, 8, 16] as [UInt32] {
                    let e = abs(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF))
                    squared += Double(e * e)
                    worst = max(worst, e)
                }
                d.maxDifference = max(d.maxDifference, worst)
                if worst > threshold { d.pixelsOverThreshold += 1 }
            }
        }
        d.pixelCount = r.width * r.height
        let mse = squared / Double(max(1, d.pixelCount * 3))
        d.psnr = mse == 0 ? .infinity : 10 * log10(255.0 * 255.0 / mse)
        return d
    }

    /// A heat map of the differences: black where equal, brighter red the larger the difference.
    public static func heatMap(_ a: PixelBuffer, _ b: PixelBuffer) -> PixelBuffer {
        var out = PixelBuffer(width: a.width, height: a.height)
        guard a.width == b.width, a.height == b.height else { return out }
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a[x, y], q = b[x, y]
                var worst: UInt32 = 0
                for shift in [0, 8, 16] as [UInt32] {
                    let e = UInt32(abs(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF)))
                    worst = max(worst, e)
                }
                let v = worst == 0 ? 0 : min(255, 64 + worst * 4)
                out[x, y] = 0xFF00_0000 | v << 16 | (worst > 8 ? v / 2 : 0) << 8
            }
        }
        return out
    }

    /// Compares `actual` with the PNG at `goldenPath`. When they differ beyond the limits, writes
    /// `actual` and a heat map next to each other in the temporary directory and names them.
    /// Set TB_UPDATE_GOLDEN=1 to (re)write the golden file instead: look at it before committing.
    public static func check(_ actual: PixelBuffer, againstGolden goldenPath: String, minimumPSNR: Double,
                             maxFractionOver: Double = 0.01, threshold: Int = 8,
                             region: IntRect? = nil) -> (passed: Bool, report: String) {
        if let update = getenv("TB_UPDATE_GOLDEN"), String(cString: update) == "1" {
            do { try PNG.write(actual, to: goldenPath) } catch { return (false, "\(error)") }
            return (true, "golden written to \(goldenPath)")
        }
        let golden: PixelBuffer
        do { golden = try PNG.read(goldenPath) } catch { return (false, "\(error)") }
        let d = compare(actual, golden, threshold: threshold, region: region)
        let passed = d.psnr >= minimumPSNR && d.fractionOverThreshold <= maxFractionOver
        if passed { return (true, d.description) }
        let base = "/tmp/tickerboard-failed-" + (goldenPath.split(separator: "/").last.map(String.init) ?? "frame.png")
        try? PNG.write(actual, to: base)
        try? PNG.write(heatMap(actual, golden), to: base + ".heat.png")
        return (false, "\(goldenPath): \(d); actual frame \(base), heat map \(base).heat.png")
    }

    /// A whole screen against Tests/Golden/`name`, with the tolerance every screen golden uses: text
    /// and antialiasing may differ by a few levels across FreeType builds, nothing visible may.
    public static func checkScreen(_ actual: PixelBuffer, golden name: String) -> (passed: Bool, report: String) {
        check(actual, againstGolden: TestPaths.golden(name), minimumPSNR: 40, maxFractionOver: 0.002)
    }
}

/// Paths of the repository and of the read-only ../shared folder beside it.
public enum TestPaths {
    /// The repository root, found from this file's location.
    public static var repositoryRoot: String {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/TestSupport/ImageComparison.swift
        return parts.joined(separator: "/")
    }

    /// ../shared beside the repository (present on developer machines and in CI), or nil.
    public static var shared: String? {
        var dir = repositoryRoot
        for _ in 0..<3 {
            let candidate = dir + "/../shared"
            if access(candidate + "/bench/SCENE.md", R_OK) == 0 { return candidate }
            dir += "/.."
        }
        return nil
    }

    /// Golden images live beside the tests that use them.
    public static func golden(_ name: String) -> String { repositoryRoot + "/Tests/Golden/" + name }

    /// A fresh path in the temporary directory.
    public static func temporary(_ name: String) -> String { "/tmp/tickerboard-test-\(getpid())-\(name)" }
}

