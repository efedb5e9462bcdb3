// One core for several outputs (issue 51): the data, the alerts, readiness and the watchdog once
// per process; a screen machine per output (its scene, frames, flips, power); events of one
// output reach it alone, and the requests every output carries out are answered once.
// Expected values are counted by hand from the config each test writes.

import CoreDriver
import Feed
@testable import KioskCore
import Testing

@Suite struct OutputsCoreTests {
    /// Two outputs, the chart on the first and the tape on the second; B's alert above 110 (the
    /// single screen's alert tests' config).
    static func config() -> Config {
        var c = CoreAlertTests.config()
        c.outputs = [OutputConfig(name: .first, scene: .chart), OutputConfig(name: .second, scene: .tape)]
        return c
    }

    func started() -> CoreDriver {
        let d = CoreDriver(config: Self.config())
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: CoreFixtures.threeDays("A", last: 50, wall: 1_796_000_000)))
        d.send(.series(instrumentID: "B", slot: .daily, series: CoreFixtures.threeDays("B", last: 105, wall: 1_796_000_000)))
        d.run(for: 3)
        return d
    }

    @Test("one core drives both: each output opened and presenting its own scene, the data held once reaches both")
    func twoScreens() throws {
        let d = started()
        #expect(d.core.outputCount == 2)
        let opens = d.effects.filter { if case .openDisplay = $0.value { true } else { false } }.map(\.output)
        #expect(opens == [0, 1])
        #expect(d.presents.contains { $0.output == 0 } && d.presents.contains { $0.output == 1 })
        // The second output shows the tape alone (`scene = tape`), the first the chart without one.
        #expect(d.presents.last { $0.output == 1 }?.value.tape?.position == .full)
        #expect(d.presents.last { $0.output == 0 }?.value.tape == nil)
        // New data: both outputs' pictures follow one series.
        d.send(.series(instrumentID: "A", slot: .daily, series: CoreFixtures.threeDays("A", last: 51.5, wall: 1_796_000_000)))
        d.run(for: 3)
        #expect(d.core.output(0).model?.instrument.market.daily?.bars.last?.close == 51.5)
        #expect(d.core.output(1).model?.instrument.market.daily?.bars.last?.close == 51.5)
        // The status file lists both outputs by the sections' names and scenes.
        let outputs = d.core.status().outputs
        #expect(outputs.map(\.name) == ["first", "second"])
        #expect(outputs.map(\.scene) == [.chart, .tape])
        #expect(outputs.map(\.state) == ["running", "running"])
    }

    @Test("an alert is judged once per process: one log line, its banner on every output")
    func alertOnce() throws {
        let d = started()
        d.send(.series(instrumentID: "B", slot: .daily, series: CoreFixtures.threeDays("B", last: 112.5, wall: 1_796_000_000)))
        d.run(for: 3)
        // Two cores logged it twice (the second prefixed [output second]).
        #expect(d.logs.filter { $0.value.hasPrefix("alert b-high") }.count == 1)
        #expect(d.presents.last { $0.output == 0 }?.value.banner == "\u{26A0} b-high: above 110")
        #expect(d.core.status().alerts == ["b-high"])
    }

    @Test("a message and the screen by hand reach every output and are answered once")
    func requestsEveryOutput() throws {
        let d = started()
        let answers = d.answers(to: .message(text: "Back at 2", seconds: 60))
        #expect(answers.count == 1)
        d.run(for: 1)
        #expect(d.presents.last { $0.output == 0 }?.value.banner == "Back at 2")
        #expect(d.presents.last { $0.output == 1 }?.value.banner == "Back at 2")
        let off = d.answers(to: .screen(.off))
        #expect(off.count == 1)
        d.run(for: 1)
        #expect(d.powered.filter { !$0.value }.map(\.output).sorted() == [0, 1])
    }

    @Test("a flip is its output's: a stuck one on the second output stops the watchdog, the first's frames go on")
    func flipsPerOutput() throws {
        let d = started()
        let pings = d.watchdogPings.count
        // The second output's flip never completes from here on (its frames wait), the first's do.
        d.flipsCompleteOn = [0]
        d.send(.control(id: 9, .message(text: "x", seconds: 600)))
        d.run(for: 30)
        let first = d.presents.filter { $0.output == 0 }.count
        d.run(for: 30)
        #expect(d.presents.filter { $0.output == 0 }.count >= first, "the first output is not held by the second's flip")
        #expect(d.logs.contains { $0.value.contains("a flip has been pending") && $0.output == 1 })
        let after = d.watchdogPings.count
        d.run(for: 60)
        #expect(d.watchdogPings.count == after, "no WATCHDOG=1 while an output's flip is stuck (before: \(pings))")
    }
}
