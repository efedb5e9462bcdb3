import Commands
import Display
import DisplayModel
import Kiosk
import KioskCore
import Raster
import TestSupport
import Testing

/// The benchmark scene must reproduce SCENE.md's geometry bit for bit and cairo's pixels closely.
@Suite("Reference scene (shared/bench/SCENE.md)")
struct ReferenceSceneTests {
    @Test("geometry fingerprints equal SCENE.md §7", arguments: [
        (22, 1920, 1080, "f371c27931ea5941"), (22, 3840, 2160, "04b3cce4a3526cfb"),
        (260, 1920, 1080, "bf60738520eae82f"), (260, 3840, 2160, "7864a40df037f21b"),
        (1300, 1920, 1080, "b30f88ad16ec9925"), (1300, 3840, 2160, "2187ff2e26ad3dc7"),
        (5000, 1920, 1080, "7b0906a26d83647d"), (5000, 3840, 2160, "3feff854e923456f"),
    ])
    func staticFingerprints(n: Int, width: Int, height: Int, expected: String) {
        let f = ReferenceScene.layout(.init(width: width, height: height), ReferenceScene.series(n, seed: 42))
        #expect(String(ReferenceScene.fingerprint(f), radix: 16).leftPadded(16) == expected)
    }

    static func morphValues(frame: Int) -> [Double] {
        let ra = ReferenceScene.resample(ReferenceScene.series(260, seed: 1001), to: 1300)
        let rb = ReferenceScene.resample(ReferenceScene.series(1300, seed: 2002), to: 1300)
        let e = ReferenceScene.ease(Double(frame) / 71.0)
        return (0..<1300).map { ra[$0] + (rb[$0] - ra[$0]) * e }
    }

    @Test("morph fingerprints equal SCENE.md §7", arguments: [
        (0, "fcf2ab4d41d3acaf"), (1, "401c2cbda162e305"), (36, "4b3f74ed4c23fe7e"), (71, "c84099a5b59cbf8a"),
    ])
    func morphFingerprints(frame: Int, expected: String) {
        let f = ReferenceScene.layout(.init(width: 1920, height: 1080), Self.morphValues(frame: frame))
        #expect(String(ReferenceScene.fingerprint(f), radix: 16).leftPadded(16) == expected)
    }

    @Test("pixels match cairo's reference: PSNR >= 45 dB, <= 1 % of pixels off by more than 8 levels",
          .enabled(if: TestPaths.shared != nil, "needs ../shared/bench/reference"),
          arguments: ["static_n22", "static_n260", "static_n1300", "static_n5000", "morph_f36"])
    func pixelsAgainstCairo(name: String) throws {
        let L = ReferenceScene.Layout(width: 1920, height: 1080)
        let values: [Double]
        if name == "morph_f36" {
            values = Self.morphValues(frame: 36)
        } else {
            values = ReferenceScene.series(Int(name.dropFirst("static_n".count))!, seed: 42)
        }
        let canvas = Canvas(width: 1920, height: 1080)
        ReferenceScene.draw(L, ReferenceScene.layout(L, values), on: canvas)
        let reference = try PNG.read(TestPaths.shared! + "/bench/reference/cairo_\(name)_1920x1080.png")
        let d = ImageComparison.compare(canvas.buffer, reference)
        #expect(d.psnr >= 45, "\(name): \(d)")
        #expect(d.fractionOverThreshold <= 0.01, "\(name): \(d)")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
