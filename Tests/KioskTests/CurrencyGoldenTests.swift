import Commands
import Display
import DisplayModel
import Kiosk
import KioskCore
import Raster
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `render` in other currencies and locales, against golden images that were looked at: yen
/// without decimals, pence with "p" after the number, de-DE's "75,51 €", and a red-up locale
/// (zh-CN: the falling 6M line is green).
@Suite("Currencies and locales on screen")
struct CurrencyGoldenTests {
    @Test("render with --currency, --locale and --colors matches the golden image", arguments: [
        ("render-currency-JPY", ["--currency", "JPY"]),
        ("render-currency-GBp-6M", ["--currency", "GBp", "--range", "6M"]),
        ("render-currency-EUR-de-DE", ["--currency", "EUR", "--locale", "de-DE"]),
        ("render-red-up-zh-CN-6M", ["--currency", "CNY", "--locale", "zh-CN", "--range", "6M"]),
    ])
    func golden(name: String, options: [String]) throws {
        let frame = try renderedFrame(["render", "--size", "960x540"] + options, tag: name)
        let result = ImageComparison.checkScreen(frame, golden: "\(name).png")
        #expect(result.passed, "\(result.report)")
    }

    @Test("--colors green-up overrides a red-up locale: the frame is not the red-up one")
    func colorsOverride() throws {
        let out = TestPaths.temporary("green-zh.png")
        defer { unlink(out) }
        #expect(Tickerboard.main(["render", "--size", "960x540", "--currency", "CNY", "--locale", "zh-CN", "--range", "6M",
                                  "--colors", "green-up", "--output", out]) == 0)
        let frame = try PNG.read(out)
        let redUp = try PNG.read(TestPaths.golden("render-red-up-zh-CN-6M.png"))
        #expect(ImageComparison.compare(frame, redUp).fractionOverThreshold > 0.01)
    }

    @Test("unknown currencies, locales and colour conventions are usage errors", arguments: [
        ["--currency", "dollars"], ["--locale", "xx-YY"], ["--colors", "blue-up"],
    ])
    func badOptions(options: [String]) {
        #expect(Tickerboard.main(["render", "--values"] + options) != 0)
    }
}
