// The scenes' one vocabulary: every name and old spelling reads back as its scene and prints as
// its name, and what the status file says is that name (the chart's was `line` until issue 51).

import StatusModel
import Testing

@Suite("Scene names")
struct SceneKindTests {
    @Test("each scene's name reads as it and prints as itself, in any case", arguments: [
        ("chart", SceneKind.chart), ("bars", .bars), ("draw", .draw), ("watchlist", .watchlist), ("tape", .tape), ("portfolio", .portfolio),
    ])
    func names(name: String, kind: SceneKind) {
        #expect(SceneKind(parsing: name) == kind)
        #expect(kind.name == name)
        #expect(SceneKind(parsing: name.uppercased()) == kind)
        #expect(SceneKind(parsing: kind.name) == kind)
    }

    @Test("the old spellings read as their scenes and print by today's names", arguments: [
        ("line", SceneKind.chart, "chart"), ("LINE", .chart, "chart"), ("draw-in", .draw, "draw"), ("Draw-In", .draw, "draw"),
    ])
    func aliases(text: String, kind: SceneKind, printed: String) {
        #expect(SceneKind(parsing: text) == kind)
        #expect(SceneKind(parsing: text)?.name == printed)
    }

    @Test("there are six scenes, and nothing else is one")
    func nothingElse() {
        #expect(SceneKind.allCases.map(\.name) == ["chart", "bars", "draw", "watchlist", "tape", "portfolio"])
        for text in ["", "ticker", " chart", "chart ", "lines", "drawin", "overview"] {
            #expect(SceneKind(parsing: text) == nil, "\(text)")
        }
    }

    @Test("a user's subset refuses the others, aliases included, and names its scenes for a message")
    func subsets() {
        let output: [SceneKind] = [.chart, .watchlist, .tape]
        #expect(SceneKind.parse("Line", among: output) == .chart)
        #expect(SceneKind.parse("tape", among: output) == .tape)
        #expect(SceneKind.parse("bars", among: output) == nil)
        #expect(SceneKind.parse("draw-in", among: output) == nil)
        #expect(SceneKind.names(output) == "chart, watchlist or tape")
        #expect(SceneKind.names([.chart, .bars, .draw], last: "and") == "chart, bars and draw")
        #expect(SceneKind.names([.tape]) == "tape")
        #expect(SceneKind.names([]) == "")
    }

    @Test("the status file writes the name; an old file's line reads as the chart; an unknown scene leaves the rest")
    func statusFile() throws {
        var status = KioskStatus()
        status.scene = .chart
        status.outputs = [KioskStatus.Output(name: "second", connector: nil, mode: nil, scene: .tape, state: "running", flips: 0, missedVblanks: 0)]
        #expect(status.json.contains("\"scene\": \"chart\""))
        #expect(status.json.contains("\"scene\": \"tape\""))
        #expect(status.keyValueLines(only: ["scene"]) == "scene=chart\n")
        #expect(KioskStatus(json: #"{"scene": "line", "outputs": [{"name": "first", "scene": "Draw-In"}]}"#)?.scene == .chart)
        #expect(KioskStatus(json: #"{"outputs": [{"name": "first", "scene": "draw-in"}]}"#)?.outputs.first?.scene == .draw)
        let unknown = try #require(KioskStatus(json: #"{"scene": "hologram", "range": "1Y"}"#))
        #expect(unknown.scene == nil && unknown.range == "1Y")
    }
}
