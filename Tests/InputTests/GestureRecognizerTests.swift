@testable import Input
@testable import InputModel
import Testing

/// Synthetic touch helpers: times in microseconds.
private func down(_ x: Double, _ y: Double, slot: Int = 0, t: UInt64 = 0) -> InputEvent { .touchDown(slot: slot, x: x, y: y, time: t) }
private func move(_ x: Double, _ y: Double, slot: Int = 0, t: UInt64) -> InputEvent { .touchMotion(slot: slot, x: x, y: y, time: t) }
private func up(slot: Int = 0, t: UInt64) -> InputEvent { .touchUp(slot: slot, time: t) }
private func frame(_ t: UInt64) -> InputEvent { .touchFrame(time: t) }

private let touchscreen = InputDeviceInfo(id: 1, name: "ts", sysname: "event3", capabilities: .touch)
private let mouse = InputDeviceInfo(id: 2, name: "mouse", sysname: "event4", capabilities: .pointer)

@Suite struct GestureRecognizerTests {
    /// Found by fuzz-gestures: a tap after the picture shrank came at the old down position,
    /// outside the new picture.
    @Test("tap after AS hrink lands inside the picture") func tapAfterAShrinkLandsInsideThePicture() {
        var r = GestureRecognizer(width: 1920, height: 1080)
        _ = r.process([down(1800, 1000, t: 0), frame(0)])
        r.resize(width: 800, height: 480)
        let g = r.process([up(t: 50_000), frame(50_000)])
        #expect(g == [.scrubEnded, .tap(x: 799, y: 479)])
    }

    @Test("scrub begins at once moves per frame and ends") func scrubBeginsAtOnceMovesPerFrameAndEnds() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([down(100, 200, t: 0)]) == [.scrubBegan(x: 100, y: 200)])
        #expect(r.isScrubbing)
        #expect(r.process([frame(0)]) == [])
        #expect(r.process([move(150, 210, t: 16_000), frame(16_000)]) == [.scrubMoved(x: 150, y: 210)])
        #expect(r.process([move(300, 220, t: 900_000), frame(900_000), up(t: 1_000_000), frame(1_000_000)])
                == [.scrubMoved(x: 300, y: 220), .scrubEnded])
        #expect(!r.isScrubbing)
    }

    @Test("moves within one frame are coalesced") func movesWithinOneFrameAreCoalesced() {
        var r = GestureRecognizer(width: 800, height: 480)
        _ = r.process([down(10, 10), frame(0)])
        let g = r.process((1...50).map { move(Double(10 + $0), 10, t: UInt64($0)) } + [frame(60)])
        #expect(g == [.scrubMoved(x: 60, y: 10)])
        // A motion to the same place is no move.
        #expect(r.process([move(60, 10, t: 70), frame(70)]) == [])
    }

    @Test("tap is short and still") func tapIsShortAndStill() {
        var r = GestureRecognizer(width: 800, height: 480)
        let g = r.process([down(400, 40, t: 1_000), frame(1_000), move(404, 43, t: 50_000), frame(50_000),
                           up(t: 120_000), frame(120_000)])
        #expect(g == [.scrubBegan(x: 400, y: 40), .scrubMoved(x: 404, y: 43), .scrubEnded, .tap(x: 400, y: 40)])
    }

    @Test("slow or travelling touch is no tap") func slowOrTravellingTouchIsNoTap() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([down(400, 40, t: 0), up(t: 400_000)]) == [.scrubBegan(x: 400, y: 40), .scrubEnded])
        // Out and back: the travel counts, not where it lifted.
        let g = r.process([down(400, 40, t: 0), move(420, 40, t: 10_000), frame(10_000),
                           move(400, 40, t: 20_000), frame(20_000), up(t: 30_000)])
        #expect(g.last == .scrubEnded)
        #expect(!g.contains(.tap(x: 400, y: 40)))
    }

    @Test("swipe", arguments: [(SwipeDirection.right, 100.0, 500.0), (.left, 700.0, 200.0)])
    func swipe(direction: SwipeDirection, from: Double, to: Double) {
        var r = GestureRecognizer(width: 800, height: 480)
        var events = [down(from, 240, t: 0), frame(0)]
        for i in 1...10 {
            let t = UInt64(i) * 16_000
            events += [move(from + (to - from) * Double(i) / 10, 240 + Double(i), t: t), frame(t)]
        }
        events.append(up(t: 170_000))
        let g = r.process(events)
        #expect(g.suffix(2) == [.scrubEnded, .swipe(direction)])
    }

    @Test("short slow or steep moves are no swipe") func shortSlowOrSteepMovesAreNoSwipe() {
        let w = 800.0
        for (dx, dy, duration) in [(100.0, 0.0, 100_000 as UInt64), (300, 0, 900_000), (300, 200, 100_000)] {
            var r = GestureRecognizer(width: w, height: 480)
            let g = r.process([down(200, 100, t: 0), move(200 + dx, 100 + dy, t: duration / 2), frame(duration / 2),
                               up(t: duration)])
            #expect(g.last == .scrubEnded, "dx \(dx) dy \(dy) \(duration) µs")
        }
    }

    @Test("extra fingers are ignored until the first lifts") func extraFingersAreIgnoredUntilTheFirstLifts() {
        var r = GestureRecognizer(width: 800, height: 480)
        var g = r.process([down(100, 100, slot: 0), frame(0), down(500, 300, slot: 1, t: 10), frame(10),
                           move(520, 300, slot: 1, t: 20), frame(20), up(slot: 1, t: 30), frame(30)])
        #expect(g == [.scrubBegan(x: 100, y: 100)])
        #expect(r.counters.extraFingers == 3)
        // Second finger down, first lifts: the second still does not count (it was extra).
        g = r.process([down(500, 300, slot: 1, t: 1_000_000), move(200, 100, slot: 0, t: 1_000_001), frame(1_000_001),
                       up(slot: 0, t: 1_000_002), move(510, 300, slot: 1, t: 1_000_003), frame(1_000_003)])
        #expect(g == [.scrubMoved(x: 200, y: 100), .scrubEnded])
        // The next fresh down counts again, on any slot.
        #expect(r.process([up(slot: 1, t: 2_000_000), down(50, 60, slot: 3, t: 2_000_001)]) == [.scrubBegan(x: 50, y: 60)])
    }

    @Test("cancel ends without tap") func cancelEndsWithoutTap() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([down(10, 10, t: 0), .touchCancel(slot: 0, time: 10), up(t: 20)]) == [.scrubBegan(x: 10, y: 10), .scrubEnded])
        #expect(r.counters.unmatched == 1)
    }

    @Test("removed device ends the scrub") func removedDeviceEndsTheScrub() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([down(10, 10, t: 0), .deviceRemoved(mouse)]) == [.scrubBegan(x: 10, y: 10)])
        #expect(r.process([move(20, 10, t: 5), .deviceRemoved(touchscreen)]) == [.scrubMoved(x: 20, y: 10), .scrubEnded])
        #expect(!r.isScrubbing)
        #expect(r.process([down(30, 30, t: 10)]) == [.scrubBegan(x: 30, y: 30)])
    }

    @Test("up without down and stray motion are ignored") func upWithoutDownAndStrayMotionAreIgnored() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([up(t: 0), move(5, 5, t: 1), frame(1), .touchCancel(slot: 0, time: 2), up(slot: 7, t: 3)]) == [])
        #expect(r.counters.unmatched == 4)
        #expect(!r.isScrubbing)
    }

    @Test("out of range positions are clamped") func outOfRangePositionsAreClamped() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([down(-50, 9_999)]) == [.scrubBegan(x: 0, y: 479)])
        #expect(r.process([move(1e300, -1e300, t: 1), frame(1)]) == [.scrubMoved(x: 799, y: 0)])
        #expect(r.process([move(.infinity, 5, t: 2), frame(2)]) == [])
        #expect(r.counters.clamped == 2)
    }

    @Test("non finite positions are dropped") func nonFinitePositionsAreDropped() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([down(.nan, 10)]) == [])
        #expect(!r.isScrubbing)
        #expect(r.process([down(10, 10, t: 0), move(.nan, .nan, t: 1), frame(1), move(12, .signalingNaN, t: 2), frame(2),
                           up(t: 50_000)]) == [.scrubBegan(x: 10, y: 10), .scrubEnded, .tap(x: 10, y: 10)])
        #expect(r.counters.nonFinite == 3)
    }

    @Test("no size ignores everything and logs once") func noSizeIgnoresEverythingAndLogsOnce() {
        final class Lines { var all: [String] = [] }
        let lines = Lines()
        for (w, h) in [(0.0, 0.0), (.nan, 480), (800, -1), (.infinity, 480)] {
            var r = GestureRecognizer(width: w, height: h, log: { lines.all.append($0) })
            #expect(r.process([down(1, 1), frame(0), up(t: 1), down(2, 2, t: 2), up(t: 3)]) == [])
            #expect(r.counters.ignoredNoSize == 5)
        }
        #expect(lines.all.count == 4)
        // A size arriving later makes it work.
        var r = GestureRecognizer(width: 0, height: 0)
        r.resize(width: 320, height: 240)
        #expect(r.process([down(400, 100)]) == [.scrubBegan(x: 319, y: 100)])
    }

    @Test("clock going backwards still gives AT ap") func clockGoingBackwardsStillGivesATap() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([down(5, 5, t: 1_000_000), up(t: 10)]) == [.scrubBegan(x: 5, y: 5), .scrubEnded, .tap(x: 5, y: 5)])
    }

    @Test("mouse acts like one finger") func mouseActsLikeOneFinger() {
        var r = GestureRecognizer(width: 800, height: 480)
        var g = r.process([.pointerMotion(x: 100, y: 100, time: 0),
                           .pointerButton(button: leftMouseButton, pressed: true, x: 100, y: 100, time: 10),
                           .pointerMotion(x: 150, y: 100, time: 20),
                           .pointerMotion(x: 5_000, y: 100, time: 30),
                           .pointerButton(button: leftMouseButton, pressed: false, x: 799, y: 100, time: 40)])
        #expect(g == [.scrubBegan(x: 100, y: 100), .scrubMoved(x: 150, y: 100), .scrubMoved(x: 799, y: 100), .scrubEnded,
                      .swipe(.right)])
        // Right button, and a finger while the mouse button is down, do nothing.
        g = r.process([.pointerButton(button: 0x111, pressed: true, x: 1, y: 1, time: 50),
                       .pointerButton(button: leftMouseButton, pressed: true, x: 10, y: 10, time: 60),
                       down(300, 300, slot: 0, t: 61), up(slot: 0, t: 62),
                       .pointerButton(button: leftMouseButton, pressed: false, x: 10, y: 10, time: 70)])
        #expect(g == [.scrubBegan(x: 10, y: 10), .scrubEnded, .tap(x: 10, y: 10)])
    }

    @Test("keys are not gestures") func keysAreNotGestures() {
        var r = GestureRecognizer(width: 800, height: 480)
        #expect(r.process([.key(code: 2, pressed: true, command: .selectRange(0), time: 0), .deviceAdded(touchscreen)]) == [])
    }

    /// 10 s of a 10 kHz flood (100,000 events, one frame each 10): constant work per event, and a
    /// state that is a plain value (no references, no collections), so memory cannot grow.
    @Test("flood of events") func floodOfEvents() {
        #expect(_isPOD(GestureRecognizer.State.self))
        var r = GestureRecognizer(width: 800, height: 480)
        var began = 0, moved = 0, ended = 0, taps = 0, swipes = 0
        var t: UInt64 = 0
        for i in 0..<100_000 {
            t += 100
            let event: InputEvent
            switch i % 1_000 {
            case 0: event = down(Double(i % 800), 100, t: t)
            case 999: event = up(t: t)
            default:
                if i % 10 == 0 { event = frame(t) } else if i % 7 == 0 { event = move(.nan, 1, t: t) }
                else if i % 13 == 0 { event = down(1, 1, slot: 5, t: t) }
                else { event = move(Double(i % 1_000) * 3 - 500, Double(i % 480), t: t) }
            }
            r.process(event) { g in
                switch g {
                case .scrubBegan: began += 1
                case .scrubMoved: moved += 1
                case .scrubEnded: ended += 1
                case .tap: taps += 1
                case .swipe: swipes += 1
                }
            }
        }
        #expect(began == 100 && ended == 100)
        #expect(moved > 9_000 && moved <= 10_000)   // at most one per frame
        #expect(taps == 0)
        #expect(!r.isScrubbing)
    }
}

@Suite struct KeyCommandTests {
    @Test("mapping") func mapping() {
        #expect((2...7).map { KeyCommand(keyCode: $0) } == (0...5).map { KeyCommand.selectRange($0) })
        #expect(KeyCommand(keyCode: 105) == .previousRange)
        #expect(KeyCommand(keyCode: 106) == .nextRange)
        #expect(KeyCommand(keyCode: 57) == .togglePause)
        #expect(KeyCommand(keyCode: 79) == .selectRange(0))
        // linux/input-event-codes.h: KEY_7 8, KEY_8 9, KEY_9 10, KEY_KP7 71, KEY_KP8 72.
        #expect(KeyCommand(keyCode: 8) == .selectRange(6))      // KEY_7: YTD or MAX, with eight ranges
        #expect(KeyCommand(keyCode: 9) == .selectRange(7))      // KEY_8
        #expect(KeyCommand(keyCode: 10) == nil)                 // KEY_9
        #expect(KeyCommand(keyCode: 71) == .selectRange(6) && KeyCommand(keyCode: 72) == .selectRange(7))
        #expect(KeyCommand(keyCode: 30) == nil)     // KEY_A
    }
}
