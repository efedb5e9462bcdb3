import Chart
import Control
import DisplayModel
import Feed
import InputModel
@testable import KioskCore
import Testing

/// Which connector drives which `[output]` section through plugging and unplugging, and where a
/// spanning tape puts each output's window (issue 34, item 3). Surveys are values; no card.
@Suite("Output assignment")
struct OutputAssignmentTests {
    typealias C = OutputAssignment.Connector
    static let fullHD = ModeRequest(width: 1920, height: 1080, refreshHz: 60)
    static let hd = ModeRequest(width: 1280, height: 720, refreshHz: 60)

    /// A Pi 4's card: two HDMI connectors, then a composite one that is never connected.
    static func pi(_ a: ModeRequest?, _ b: ModeRequest?) -> [C] {
        [C(name: "HDMI-A-1", connected: a != nil, modes: a.map { [$0] } ?? []),
         C(name: "HDMI-A-2", connected: b != nil, modes: b.map { [$0] } ?? []),
         C(name: "Composite-1", connected: false, modes: [])]
    }

    static let twoOrdinals = [OutputConfig(name: .first, scene: .chart), OutputConfig(name: .second, scene: .tape)]

    @Test("first and second take the connected connectors in the card's order")
    func ordinals() {
        var a = OutputAssignment(outputs: Self.twoOrdinals)
        let changes = a.update(Self.pi(Self.hd, Self.fullHD))
        #expect(changes == [.start(output: 0, connector: "HDMI-A-1", mode: Self.hd),
                            .start(output: 1, connector: "HDMI-A-2", mode: Self.fullHD)])
        #expect(a.states.map(\.frameWidth) == [1280, 1920])
        // The same survey again changes nothing.
        #expect(a.update(Self.pi(Self.hd, Self.fullHD)) == [])
    }

    @Test("one unplugged: it waits, the other keeps its connector; replugged: the same scene on the same screen")
    func unplugAndReplug() {
        var a = OutputAssignment(outputs: Self.twoOrdinals)
        _ = a.update(Self.pi(Self.hd, Self.fullHD))
        // Unplugging the first does not make the second the "first".
        #expect(a.update(Self.pi(nil, Self.fullHD)) == [.stop(output: 0, connector: "HDMI-A-1")])
        #expect(a.states[0].connector == nil && a.states[0].waiting == "HDMI-A-1 is not connected")
        #expect(a.states[1].connector == "HDMI-A-2")
        #expect(a.update(Self.pi(Self.hd, Self.fullHD)) == [.start(output: 0, connector: "HDMI-A-1", mode: Self.hd)])
        // The other way round, and with another monitor (mode) on the replug: restart that one only.
        #expect(a.update(Self.pi(Self.hd, nil)) == [.stop(output: 1, connector: "HDMI-A-2")])
        #expect(a.update(Self.pi(Self.hd, Self.hd)) == [.start(output: 1, connector: "HDMI-A-2", mode: Self.hd)])
        #expect(a.update(Self.pi(Self.hd, Self.fullHD)) == [.stop(output: 1, connector: "HDMI-A-2"),
                                                          .start(output: 1, connector: "HDMI-A-2", mode: Self.fullHD)])
        #expect(a.homes == ["HDMI-A-1", "HDMI-A-2"])
    }

    @Test("the status lines: each output, its connector and mode and scene, or what it waits for")
    func summary() {
        var a = OutputAssignment(outputs: [OutputConfig(name: .first, scene: .chart, rotation: 90),
                                           OutputConfig(name: .connector("HDMI-A-2"), scene: .tape)])
        #expect(a.summary == ["first waiting: not surveyed yet", "HDMI-A-2 waiting: not surveyed yet"])
        _ = a.update(Self.pi(Self.hd, Self.fullHD))
        #expect(a.summary == ["first HDMI-A-1 1280x720@60 chart rotated 90", "HDMI-A-2 1920x1080@60 tape"])
        _ = a.update(Self.pi(nil, Self.fullHD))
        #expect(a.summary == ["first waiting: HDMI-A-1 is not connected", "HDMI-A-2 1920x1080@60 tape"])
    }

    @Test("one screen at boot on the second port is first; the port plugged later is second")
    func lateSecond() {
        var a = OutputAssignment(outputs: Self.twoOrdinals)
        #expect(a.update(Self.pi(nil, Self.hd)) == [.start(output: 0, connector: "HDMI-A-2", mode: Self.hd)])
        #expect(a.states[1].waiting == "no free connected connector")
        #expect(a.update(Self.pi(Self.fullHD, Self.hd)) == [.start(output: 1, connector: "HDMI-A-1", mode: Self.fullHD)])
    }

    @Test("a lone output follows its cable to another port; with two, a free port goes to the homeless one")
    func cableMoved() {
        var one = OutputAssignment(outputs: [OutputConfig(name: .first)])
        _ = one.update(Self.pi(Self.hd, nil))
        _ = one.update(Self.pi(nil, nil))
        #expect(one.update(Self.pi(nil, Self.hd)) == [.start(output: 0, connector: "HDMI-A-2", mode: Self.hd)])
        #expect(one.homes == ["HDMI-A-2"])

        var two = OutputAssignment(outputs: Self.twoOrdinals)
        _ = two.update(Self.pi(Self.hd, nil))
        _ = two.update(Self.pi(nil, nil))
        // `second` has never had a screen: it takes the new one; `first` waits for its own port.
        #expect(two.update(Self.pi(nil, Self.hd)) == [.start(output: 1, connector: "HDMI-A-2", mode: Self.hd)])
        #expect(two.update(Self.pi(Self.hd, Self.hd)) == [.start(output: 0, connector: "HDMI-A-1", mode: Self.hd)])
    }

    @Test("a named section drives its connector; first never takes it, even while it is unplugged")
    func namedReserved() {
        var a = OutputAssignment(outputs: [OutputConfig(name: .connector("hdmi-a-1"), scene: .tape),
                                           OutputConfig(name: .first, scene: .chart)])
        #expect(a.update(Self.pi(Self.hd, Self.fullHD)) == [.start(output: 0, connector: "HDMI-A-1", mode: Self.hd),
                                                          .start(output: 1, connector: "HDMI-A-2", mode: Self.fullHD)])
        #expect(a.update(Self.pi(Self.hd, nil)) == [.stop(output: 1, connector: "HDMI-A-2")])
        #expect(a.states[1].waiting == "HDMI-A-2 is not connected")
        var b = OutputAssignment(outputs: [OutputConfig(name: .connector("HDMI-A-1")), OutputConfig(name: .first)])
        #expect(b.update(Self.pi(nil, Self.hd)) == [.start(output: 1, connector: "HDMI-A-2", mode: Self.hd)])
        #expect(b.states[0].waiting == "HDMI-A-1 is not connected")
        var c = OutputAssignment(outputs: [OutputConfig(name: .connector("DSI-1"))])
        #expect(c.update(Self.pi(Self.hd, nil)) == [])
        #expect(c.states[0].waiting == "the card has no connector DSI-1")
    }

    @Test("connected with no modes is not usable; a quarter turn swaps the frame's sides, auto follows the panel")
    func modesAndRotation() {
        var a = OutputAssignment(outputs: [OutputConfig(name: .first, rotation: 90), OutputConfig(name: .second)])
        let card = [C(name: "DSI-1", connected: true, modes: []),
                    C(name: "HDMI-A-1", connected: true, modes: [Self.fullHD, Self.hd]),
                    C(name: "DSI-2", connected: true, modes: [Self.hd], panelRotation: 270)]
        #expect(a.update(card) == [.start(output: 0, connector: "HDMI-A-1", mode: Self.fullHD),
                                   .start(output: 1, connector: "DSI-2", mode: Self.hd)])
        #expect(a.states.map(\.frameWidth) == [1080, 720])
        #expect(a.states.map(\.frameHeight) == [1920, 1280])
    }

    @Test("spanning tape across 1280 + 1920: offsets, and an item leaving one screen enters the other at the same instant")
    func spanContinuity() {
        var a = OutputAssignment(outputs: Self.twoOrdinals)
        _ = a.update(Self.pi(Self.hd, Self.fullHD))
        let span = a.spanOffsets { _ in true }
        #expect(span.offsets == [0, 1280])
        #expect(span.x0 == 3200)
        let motion = TapeMotion(widths: [301.5, 455, 612.25, 220, 390], gap: 48, speed: 120, x0: span.x0)
        let w0 = a.states[0].frameWidth, w1 = a.states[1].frameWidth
        let o0 = span.offsets[0] ?? -1, o1 = span.offsets[1] ?? -1
        // Every 1/60 s for 40 s: the strip column under the second screen's x = 0 is the column
        // under the first's x = 1280, so an item's edge crosses the seam on both at once.
        var crossings = 0
        for frame in 0..<(60 * 40) {
            let t = Double(frame) / 60
            let left = motion.item(atX: Double(w0), time: t, offset: o0)
            let right = motion.item(atX: 0, time: t, offset: o1)
            #expect(left?.index == right?.index)
            #expect(abs((left?.into ?? -1) - (right?.into ?? -2)) < 1e-9)
            // The copies the first screen draws past its right edge are the second's first copies.
            let edgeLeft = motion.placements(at: t, width: w0, offset: o0).last!
            let edgeRight = motion.placements(at: t, width: w1, offset: o1).first!
            if edgeLeft.x + Double(motion.cells[edgeLeft.index]) > Double(w0) {
                #expect(edgeLeft.index == edgeRight.index)
                #expect(abs((edgeLeft.x - Double(w0)) - edgeRight.x) < 1e-9)
                crossings += 1
            }
        }
        // Most frames have an item across the seam; the test would be empty otherwise.
        #expect(crossings > 60 * 30)
    }

    @Test("a spanning output unplugged keeps its place, so the other's tape does not jump; a non-tape output takes none")
    func spanThroughUnplug() {
        var a = OutputAssignment(outputs: [OutputConfig(name: .first, scene: .tape), OutputConfig(name: .second, scene: .chart),
                                           OutputConfig(name: .connector("DP-1"), scene: .tape)])
        let card = [C(name: "HDMI-A-1", connected: true, modes: [Self.hd]),
                    C(name: "HDMI-A-2", connected: true, modes: [Self.fullHD]),
                    C(name: "DP-1", connected: true, modes: [Self.fullHD])]
        _ = a.update(card)
        let shows: (OutputConfig) -> Bool = { $0.scene == .tape }
        let before = a.spanOffsets(showsTape: shows)
        #expect(before.offsets == [0, nil, 1280])
        #expect(before.x0 == 3200)
        var unplugged = card
        unplugged[0].connected = false
        #expect(a.update(unplugged) == [.stop(output: 0, connector: "HDMI-A-1")])
        #expect(a.spanOffsets(showsTape: shows).offsets == before.offsets)
        #expect(a.spanOffsets(showsTape: shows).x0 == before.x0)
        // Never driven: no room until it is.
        var late = OutputAssignment(outputs: a.outputs)
        var onlyDP = card
        onlyDP[0].connected = false
        onlyDP[1].connected = false
        _ = late.update(onlyDP)
        #expect(late.spanOffsets(showsTape: shows).offsets == [0, nil, 0])
        #expect(late.spanOffsets(showsTape: shows).x0 == 1920)
    }
}

/// The routing rule written by hand from what each event is about (issue 51: the core, not the
/// shell, decides what fans out).
@Suite struct OutputRoutingTests {
    @Test func dataTimeAndPeopleReachEveryOutputADisplaysOwnEventsAndTheChartsRequestsOne() {
        let series = PriceSeries(name: "A", interval: .daily, bars: [])
        let everyOutput: [KioskEvent] = [.start, .timer, .series(instrumentID: "A", slot: .daily, series: series),
                                         .fetchStatus(instrumentID: "A", nil), .dataProblems([:]), .clockStepped, .presence,
                                         .vtRelease, .vtAcquire, .terminate, .control(id: 1, .message(text: "hi", seconds: nil)),
                                         .control(id: 1, .clearMessage), .control(id: 1, .screen(.off)), .control(id: 1, .brightness(50)),
                                         // One room, one light; a card plugged in may be any output's.
                                         .ambientLight(lux: 80), .hotplug, .kmsOutputAppeared(reason: "HDMI-A-1 connected")]
        let oneOutput: [KioskEvent] = [.flipCompleted(vblank: 1, sequence: 1), .presentFailed("busy"),
                                       .gesture(.tap(x: 1, y: 1), inputMicros: nil), .touchScreen(present: true),
                                       .control(id: 1, .next), .control(id: 1, .pause), .control(id: 1, .status)]
        let fanned = everyOutput.map { $0.reachesEveryOutput }, alone = oneOutput.map { $0.reachesEveryOutput }
        #expect(!fanned.contains(false) && !alone.contains(true))
    }
}
