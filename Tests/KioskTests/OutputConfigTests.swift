@testable import KioskCore
import Testing

/// `[output NAME]` sections (issue 34): their syntax, their messages as check-config prints
/// them, and what they mean together with `[display]` and `[tape]`.
@Suite("Output sections")
struct OutputConfigTests {

    private func parse(_ text: String) -> (Config, errors: [String], warnings: [String]) {
        let (config, issues) = Config.parse(text, file: "t.conf")
        return (config, issues.filter { $0.severity == .error }.map(\.description),
                issues.filter { $0.severity == .warning }.map(\.description))
    }

    static let broken: [BrokenConfig] = [
        // A refused header is one message, not one per key.
        .init(text: "[output third]\nscene = tape\nrotation = 90",
              expected: "t.conf:1: [output NAME]: \"third\" is not first, second or a connector name like HDMI-A-1 (letters, digits and -, at most 32 characters)"),
        .init(text: "[output HDMI]",
              expected: "t.conf:1: [output NAME]: \"HDMI\" is not first, second or a connector name like HDMI-A-1 (letters, digits and -, at most 32 characters)"),
        .init(text: "\n[output HDMI-A-1/../x]\nscene = tape",
              expected: "t.conf:2: [output NAME]: \"HDMI-A-1/../x\" is not first, second or a connector name like HDMI-A-1 (letters, digits and -, at most 32 characters)"),
        .init(text: "[output DP-1-]",
              expected: "t.conf:1: [output NAME]: \"DP-1-\" is not first, second or a connector name like HDMI-A-1 (letters, digits and -, at most 32 characters)"),
        .init(text: "[output first]\nscene = video",
              expected: "t.conf:2: scene: expected chart, watchlist or tape, found \"video\""),
        // Scenes of the chart's round are no output's; the message lists what an output takes.
        .init(text: "[output first]\nscene = bars",
              expected: "t.conf:2: scene: expected chart, watchlist or tape, found \"bars\""),
        .init(text: "[output first]\nscene = draw-in",
              expected: "t.conf:2: scene: expected chart, watchlist or tape, found \"draw-in\""),
        .init(text: "[output first]\nrotation = 45",
              expected: "t.conf:2: rotation: expected auto ([display] rotation), 0, 90, 180 or 270, found \"45\""),
        .init(text: "[output first]\nscale = 0.1",
              expected: "t.conf:2: scale: expected auto ([display] scale) or a number from 0.25 to 4, found \"0.1\""),
        .init(text: "[output first]\nscale = nan",
              expected: "t.conf:2: scale: expected auto ([display] scale) or a number from 0.25 to 4, found \"nan\""),
    ]

    @Test("each broken value gives exactly its message, as an error", arguments: broken)
    func brokenValue(_ c: BrokenConfig) {
        #expect(parse(c.text).errors == [c.expected])
    }

    @Test("sections in order, names as written, keys applied, a bad key keeps its default")
    func parsesSections() {
        let (config, errors, warnings) = parse("""
            [output HDMI-A-2]
            scene = tape
            rotation = 90
            [output first]
            scene = Watchlist
            scale = 1.5
            rotation = 7
            sceen = tape
            """)
        #expect(errors == ["t.conf:7: rotation: expected auto ([display] rotation), 0, 90, 180 or 270, found \"7\""])
        #expect(warnings == ["t.conf:8: sceen: unknown key, ignored (did you mean \"scene\"?)"])
        #expect(config.outputs.map(\.name) == [.connector("HDMI-A-2"), .first])
        #expect(config.outputs.map(\.scene) == [.tape, .watchlist])
        #expect(config.outputs.map(\.rotation) == [90, nil])
        #expect(config.outputs.map(\.scale) == [nil, 1.5])
    }

    @Test("scene = line, the chart's old name, is the chart")
    func oldChartName() {
        let (config, errors, _) = parse("[output first]\nscene = Line")
        #expect(errors.isEmpty)
        #expect(config.outputs.map(\.scene) == [.chart])
    }

    @Test("a section repeated in a drop-in or in another case merges; messages name the drop-in's line")
    func dropInsMerge() {
        let (config, issues) = Config.parse([
            ("[output hdmi-a-1]\nscene = tape\n[output FIRST]\nscene = chart\n", "main.conf"),
            ("[output HDMI-A-1]\nrotation = 180\n[output first]\nscene = bogus\n", "conf.d/10-screens.conf"),
        ])
        #expect(config.outputs.count == 2)
        #expect(config.outputs[0].scene == .tape && config.outputs[0].rotation == 180)
        #expect(config.outputs[0].location(of: "rotation", mainFile: "main.conf") == ("conf.d/10-screens.conf", 2))
        #expect(config.outputs[0].location(of: "scene", mainFile: "main.conf") == ("main.conf", 2))
        #expect(issues.filter { $0.severity == .error }.map(\.description)
                == ["conf.d/10-screens.conf:4: scene: expected chart, watchlist or tape, found \"bogus\""])
    }

    @Test("[input] output names the touchscreen's output; anything else is refused with its line")
    func inputOutput() {
        let (config, errors, _) = parse("[input]\noutput = HDMI-A-2\n[output first]\n[output HDMI-A-2]\n")
        #expect(errors.isEmpty)
        #expect(config.inputOutput == .connector("HDMI-A-2"))
        let (bad, badErrors, _) = parse("[input]\noutput = the big one\n")
        #expect(bad.inputOutput == nil)
        #expect(badErrors == ["t.conf:2: output: expected first, second or a connector name like HDMI-A-1 (the output the touchscreen is on), found \"the big one\""])
    }

    @Test("with backend = fbdev the sections say that they need KMS")
    func fbdevNotice() {
        let (_, errors, warnings) = parse("[display]\nbackend = fbdev\n[output first]\n[output second]\nscene = tape\n")
        #expect(errors.isEmpty)
        #expect(warnings == ["t.conf:3: \(Config.outputsNeedKMS)"])
    }

    @Test("each output's screen runs on the single-screen keys its section means")
    func perOutputConfig() {
        let (config, errors, _) = parse("""
            [display]
            rotation = 180
            [chart]
            watchlist = only
            [tape]
            position = full
            [output first]
            scene = chart
            [output second]
            scene = tape
            rotation = 90
            scale = 2
            [output DP-1]
            scene = watchlist
            """)
        #expect(errors.isEmpty)
        let first = config.forOutput(0), second = config.forOutput(1), third = config.forOutput(2)
        // The chart output cycles (an overview alone is what scene = watchlist says) with no full tape.
        #expect(first.tapePosition == .off && first.watchlist == .cycle && first.rotation == 180)
        #expect(second.tapePosition == .full && second.rotation == 90 && second.scale == 2)
        #expect(third.watchlist == .only && third.tapePosition == .off && third.rotation == 180)
        // Out of range, or no sections: the config as it is.
        #expect(config.forOutput(7) == config)
        let (single, _, _) = parse("[tape]\nposition = full\n")
        #expect(single.forOutput(0) == single)
    }

    @Test("at most four sections; the fifth is an error and is not kept")
    func boundedCount() {
        let text = (1...5).map { "[output DP-\($0)]\nscene = tape" }.joined(separator: "\n")
        let (config, errors, _) = parse(text)
        #expect(config.outputs.count == 4)
        #expect(errors == ["t.conf:9: more than 4 [output] sections"])
    }

    @Test("what the sections mean together: warnings at the keys they override")
    func wholeFileWarnings() {
        let (_, errors, warnings) = parse("""
            [display]
            connector = HDMI-A-1
            [tape]
            position = full
            span = all
            [output second]
            scene = tape
            """)
        #expect(errors.isEmpty)
        #expect(warnings == [
            "t.conf:6: [output second] without [output first]: the first connector stays dark, and with one screen plugged in nothing shows",
            "t.conf:2: connector: HDMI-A-1 is ignored: the [output] sections name the connectors",
            "t.conf:4: position: full is the single screen's tape; with [output] sections scene = tape makes an output the tape, and chart or watchlist outputs get a band with bottom or top",
            "t.conf:5: span: span = all joins the tapes of two or more outputs, and 1 shows one (scene = tape, or [tape] position = bottom or top)",
        ])
    }

    @Test("span = all over a tape output and a chart output with a band is two tapes: no span warning")
    func spanWithBand() {
        let (config, errors, warnings) = parse("""
            [tape]
            position = bottom
            span = all
            [output first]
            scene = tape
            [output second]
            """)
        #expect(errors.isEmpty)
        #expect(warnings.isEmpty)
        // `[output second]` without keys is a section all the same: the chart with a band.
        #expect(config.outputs.map(\.name) == [.first, .second])
        #expect(config.outputs.map(\.scene) == [.tape, .chart])
        #expect(config.outputs.map(\.line) == [4, 6])
        #expect(config.outputs.filter(config.showsTape).count == 2)
    }

    @Test("without sections, a single screen's config gives no new message (span = all included)")
    func singleScreenUnchanged() {
        let (config, issues) = Config.parse("[tape]\nposition = full\nspan = all\n[display]\nconnector = HDMI-A-1\n", file: "t.conf")
        #expect(issues.isEmpty)
        #expect(config.outputs.isEmpty)
    }

    @Test("effective outputs: without sections the one [display] screen; with them [display]'s rotation and scale fill in")
    func effectiveOutputs() {
        var c = Config()
        #expect(c.effectiveOutputs == [OutputConfig(name: .first, scene: .chart)])
        c.connector = "DSI-1"; c.rotation = 90; c.scale = 2; c.tapePosition = .full
        #expect(c.effectiveOutputs == [OutputConfig(name: .connector("DSI-1"), scene: .tape, rotation: 90, scale: 2)])
        c.tapePosition = .bottom; c.watchlist = .only
        #expect(c.effectiveOutputs.map(\.scene) == [.watchlist])
        c.outputs = [OutputConfig(name: .first, scene: .tape, rotation: 180), OutputConfig(name: .second, scale: 1)]
        #expect(c.effectiveOutputs.map(\.rotation) == [180, 90])
        #expect(c.effectiveOutputs.map(\.scale) == [2, 1])
    }
}
