import Chart
@testable import Commands
import CoreDriver
import DisplayModel
import Feed
import InputModel
@testable import Kiosk
@testable import KioskCore
import Testing
import Text

/// The core holds state, the shell holds pixels: whatever a core can reach after a day of running
/// (its models, the overview, the entries, the fonts) is walked by reflection, and no canvas, pixel
/// buffer, band renderer or thread pool may be among it. A renderer is the shell's (one per display).
@Suite("Core purity")
struct CorePurityTests {
    /// The type names of everything reachable from `root` that is one of `forbidden`, and whether
    /// `marker` was reached at all (so a walk that stopped early cannot pass).
    static func reachable(from root: Any, forbidden: [String], marker: String) -> (found: Set<String>, sawMarker: Bool) {
        var found: Set<String> = []
        var sawMarker = false
        var seen: Set<ObjectIdentifier> = []
        var stack: [Any] = [root]
        var visits = 0
        while let value = stack.popLast(), visits < 5_000_000 {
            visits += 1
            let name = String(reflecting: type(of: value))
            if forbidden.contains(where: { name == $0 || name.hasPrefix($0 + "<") }) { found.insert(name) }
            if name == marker { sawMarker = true }
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .class {
                let id = ObjectIdentifier(value as AnyObject)
                guard seen.insert(id).inserted else { continue }
            }
            // Plain numbers and text have nothing inside worth walking.
            if value is Double || value is Int || value is Int64 || value is String || value is Float { continue }
            var m: Mirror? = mirror
            while let current = m {
                for child in current.children { stack.append(child.value) }
                m = current.superclassMirror
            }
        }
        return (found, sawMarker)
    }

    static let forbidden = ["Raster.Canvas", "Raster.PixelBuffer", "Raster.BandRenderer", "Raster.WorkerPool",
                            "Chart.SceneRenderer"]

    @Test("after a day of cycling, chart, bars and overview, nothing the core holds is pixels or threads")
    func coreHoldsNoPixels() {
        let config = Config.watchlist(["A", "B"]) {
            $0.watchlist = .cycle
            $0.instrumentCycleSeconds = 120
            $0.renderThreads = 4
        }
        let d = CoreDriver(config: config, display: DisplayInfo(width: 640, height: 360, refreshHz: 10))
        d.send(.start)
        for id in ["A", "B"] {
            d.send(.series(instrumentID: id, slot: .daily, series: SampleMarket.daily()))
            d.send(.series(instrumentID: id, slot: .intraday, series: SampleMarket.intraday()))
        }
        var scenes: Set<String> = []
        d.run(for: 86_400) {
            d.recordShown()
            if let key = d.shown.last?.value { scenes.insert(String(key.split(separator: " ").last ?? "")) }
        }
        // The day went through the line, the bars and the overview.
        #expect(scenes.contains("watchlist") && scenes.contains("bars") && scenes.contains("1M"), "\(scenes)")
        #expect(d.presents.count > 100)
        let walk = Self.reachable(from: d.core, forbidden: Self.forbidden, marker: "Chart.ScreenModel")
        #expect(walk.sawMarker, "the walk reached the core's model")
        #expect(walk.found.isEmpty, "the core holds \(walk.found.sorted())")
    }

    @Test("the walk finds a canvas where there is one (the check can fail)")
    func walkFindsPixels() throws {
        let renderer = SceneRenderer(renderThreads: 2)
        let model = ScreenModel(instrument: .sample(), width: 64, height: 36, fonts: try FontSet.load())
        renderer.render(model, at: 0)
        let walk = Self.reachable(from: renderer, forbidden: Self.forbidden, marker: "Chart.SceneRenderer")
        #expect(walk.found.contains("Raster.Canvas"))
        #expect(walk.found.contains("Raster.PixelBuffer"))
        #expect(walk.found.contains("Chart.SceneRenderer"))
    }
}
