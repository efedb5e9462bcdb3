// The scenes' one vocabulary: every name and old spelling reads back as its scene and prints as
// its name.

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

}
