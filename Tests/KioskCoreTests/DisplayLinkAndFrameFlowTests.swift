// The display's lifecycle (DisplayLink) and the frames and flips (FrameFlow) driven alone: the
// display's events, frames, reports, flips and times in; opens, log lines, frames' offsets and
// copies, counts and watchdog pings out. Times are chosen to be exact in binary (a 4 Hz display
// flips every 0.25 s) so that every expected value is worked out by hand from the rules in the
// comments, never read back from the code.
import Control
import CoreDriver
import DisplayModel
@testable import KioskCore
import Testing

private let screen = DisplayInfo(width: 800, height: 480, refreshHz: 4)

private func shifted(_ dx: Int, _ dy: Int) -> BurnInShift.Offset { BurnInShift.Offset(dx: dx, dy: dy) }

@Suite struct DisplayLinkTests {
    @Test("closed at first: no display, no info, no deadline, and a timer opens nothing")
    func closedAtFirst() {
        var link = DisplayLink()
        #expect(link.state == .closed && link.info == nil && link.displayState == .none)
        #expect(link.retryAt == nil && link.detail == nil)
        #expect(link.timer(at: 1_000_000) == [])
    }

    @Test("a hotplug with no display opens one 0.5 s later, once; the second hotplug keeps the first's time")
    func hotplugRetry() {
        var link = DisplayLink()
        link.hotplug(at: 100)
        // 100 + 0.5 s for udev to set the node's permissions.
        #expect(link.retryAt == 100.5)
        link.hotplug(at: 100.25)
        #expect(link.retryAt == 100.5)
        #expect(link.timer(at: 100.25) == [])
        #expect(link.timer(at: 100.5) == [.openDisplay])
        #expect(link.retryAt == nil)
        #expect(link.timer(at: 101) == [])
    }

    @Test("a hotplug while a display is open does nothing; opening clears a pending retry")
    func hotplugWhileOpen() {
        var link = DisplayLink()
        link.hotplug(at: 10)
        #expect(link.opened(screen) == [.watchHotplug(false)])
        #expect(link.retryAt == nil)
        link.hotplug(at: 20)
        #expect(link.retryAt == nil)
        #expect(link.timer(at: 30) == [])
    }

    @Test("opened: presenting when the output is connected, else waiting; a framebuffer that yields keeps watching")
    func opened() {
        var link = DisplayLink()
        #expect(link.opened(screen) == [.watchHotplug(false)])
        #expect(link.state == .presenting(screen) && link.displayState == .presenting)
        var unplugged = screen
        unplugged.outputConnected = false
        #expect(link.opened(unplugged) == [.watchHotplug(false)])
        #expect(link.state == .waitingForOutput(unplugged) && link.displayState == .waitingForOutput)
        var framebuffer = screen
        framebuffer.yieldsToKMS = true
        #expect(link.opened(framebuffer) == [.watchHotplug(true)])
    }

    @Test("no display to be had: said when the shell has not said it, and hotplug is watched")
    func unavailable() {
        var link = DisplayLink()
        _ = link.opened(screen)
        #expect(link.unavailable(message: "no card") == [
            .log(.warning, "display: no card; waiting for a display to appear"), .watchHotplug(true),
        ])
        #expect(link.state == .closed && link.info == nil)
        #expect(link.unavailable(message: nil) == [.watchHotplug(true)])
    }

    @Test("a KMS output replaces a framebuffer that yields to it, and nothing else")
    func kmsOutputAppeared() {
        var link = DisplayLink()
        _ = link.opened(screen)
        #expect(link.kmsOutputAppeared("card1 HDMI-A-1") == [])
        #expect(link.state == .presenting(screen))
        var framebuffer = screen
        framebuffer.yieldsToKMS = true
        _ = link.opened(framebuffer)
        #expect(link.kmsOutputAppeared("card1 HDMI-A-1") == [
            .log(.notice, "display: a KMS output appeared (card1 HDMI-A-1); moving from the framebuffer to KMS"), .reopenDisplay,
        ])
        #expect(link.state == .closed)
    }

    @Test("unplugged and back: waiting with what was known; back at the same size no relayout, at another one a relayout")
    func unpluggedAndBack() {
        var link = DisplayLink()
        _ = link.opened(screen)
        var gone = screen
        gone.outputConnected = false
        #expect(link.changed(.connectorLost, gone) == [.log(.warning, "display: output disconnected; rendering stopped until it returns")])
        // The info stays the one last presented on: the unplugged one has nothing to lay out.
        #expect(link.state == .waitingForOutput(screen))
        #expect(link.changed(.connectorReturned, screen) == [.log(.notice, "display: output back (800x480); redrawing")])
        #expect(link.state == .presenting(screen))
        let larger = DisplayInfo(width: 1024, height: 600, refreshHz: 4)
        _ = link.changed(.connectorLost, larger)
        #expect(link.changed(.connectorReturned, larger) == [.log(.notice, "display: output back (1024x600); redrawing"), .relayout])
        #expect(link.info == larger)
    }

    @Test("another DRM master: said once a holder, kept through a VT switch, cleared when the screen is ours again")
    func otherMaster() {
        var link = DisplayLink()
        _ = link.opened(screen)
        var held = screen
        held.screenHolder = "1234 (labwc)"
        let hint = "; waiting for it to let go. A desktop image? Use Raspberry Pi OS Lite, "
            + "or systemctl set-default multi-user.target and reboot"
        #expect(link.changed(.masterLost, held) == [.log(.warning, "display: 1234 (labwc) holds the screen (DRM master)" + hint)])
        #expect(link.state == .otherMaster(screen) && link.detail == "1234 (labwc) holds the screen (DRM master)")
        // The same holder again is not news; another (unnamed) one is.
        #expect(link.changed(.masterLost, held) == [])
        held.screenHolder = ""
        #expect(link.changed(.masterLost, held) == [.log(.warning, "display: another program holds the screen (DRM master)" + hint)])
        link.vtReleased()
        #expect(link.state == .away(screen) && link.displayState == .away)
        #expect(link.detail == "another program holds the screen (DRM master)")
        #expect(link.changed(.masterRegained, screen) == [.log(.notice, "display: output back (800x480); redrawing")])
        #expect(link.state == .presenting(screen) && link.detail == nil)
    }

    @Test("a master that lets go: the display is opened again, and nothing is said of the holder any more")
    func masterFree() {
        var link = DisplayLink()
        _ = link.opened(screen)
        _ = link.changed(.masterLost, screen)
        #expect(link.changed(.masterFree, screen) == [
            .log(.notice, "display: the program that held the screen let it go; opening it again"), .reopenDisplay,
        ])
        #expect(link.state == .closed && link.detail == nil && link.info == nil)
    }

    @Test("a VT switch with no display leaves it closed")
    func vtReleaseClosed() {
        var link = DisplayLink()
        link.vtReleased()
        #expect(link.state == .closed)
    }

    @Test("a reload reopens the display when [display] changed, and only then")
    func reconfigured() {
        let link = DisplayLink()
        let old = Config()
        var other = old
        other.cycleSeconds = 30
        #expect(link.reconfigured(from: old, to: other) == [])
        var moved = old
        moved.connector = "HDMI-A-2"
        #expect(link.reconfigured(from: old, to: moved) == [
            .log(.notice, "reload: [display] changed; reopening the display"), .reopenDisplay,
        ])
    }
}

@Suite struct FrameFlowTests {
    /// Burn-in off: every offset is zero.
    private static let noShift = BurnInShift(shift: 0, periodSeconds: 60)

    /// Asks for a frame the way the core does with a still scene and no tape, on a display that
    /// moves its scanout up to `limit` pixels and needs no turn.
    private static func frame(_ f: inout FrameFlow, at t: Double, moving: Bool = false, tape: Bool = false,
                              limit: Int = 0) -> FrameFlow.Frame? {
        f.frame(at: t, sceneMoving: moving, tapeMoving: tape, startedAt: 0, shiftLimit: limit, rotatesByScanout: true)
    }

    @Test("the frame time is the vblank after the last one, or now before the first and when the loop fell behind")
    func frameTime() {
        var f = FrameFlow(burnIn: Self.noShift)
        #expect(f.frameTime(at: 10.1, refreshHz: 4) == 10.1)
        f.flipCompleted(vblank: 10, sequence: 1, animating: false)
        // 4 Hz: a period of 0.25 s, the next vblank at 10.25. Up to one period past it (10.5) the
        // frame is still drawn for 10.25; later than that, for now.
        #expect(f.frameTime(at: 10.1, refreshHz: 4) == 10.25)
        #expect(f.frameTime(at: 10.5, refreshHz: 4) == 10.25)
        #expect(f.frameTime(at: 10.6, refreshHz: 4) == 10.6)
        // No rate known: 60 Hz; a rate under 1 Hz counts as 1 Hz.
        #expect(f.frameTime(at: 10, refreshHz: nil) == 10 + 1.0 / 60)
        #expect(f.frameTime(at: 10, refreshHz: 0.5) == 11)
    }

    @Test("nothing is due until the picture changes; the first frame copies whole, the next one not")
    func firstFrames() {
        var f = FrameFlow(burnIn: Self.noShift)
        // A fresh flow owes a whole copy, but a copy of no new picture is no frame.
        #expect(f.needs == [.wholeCopy])
        #expect(Self.frame(&f, at: 1) == nil)
        f.needs.insert(.picture)
        // Offset zero; no scanout room (limit 0), so the shift is a copy, a new one: full.
        #expect(Self.frame(&f, at: 1) == FrameFlow.Frame(offset: .zero, shiftByScanout: false, fullCopy: true, redraw: true))
        #expect(f.needs.isEmpty)
        f.present(.still, at: 1)
        f.reported(FrameReport())
        f.flipCompleted(vblank: 1.25, sequence: 1, animating: false)
        f.needs.insert(.picture)
        // The same copied offset as the last frame: only the damage is copied.
        #expect(Self.frame(&f, at: 1.5) == FrameFlow.Frame(offset: .zero, shiftByScanout: false, fullCopy: false, redraw: true))
    }

    @Test("a frame drawn mid-motion is followed by one more, at rest, which is the settled frame")
    func settledFrame() {
        var f = FrameFlow(burnIn: Self.noShift)
        f.needs.insert(.picture)
        _ = Self.frame(&f, at: 1, moving: true)
        f.present(.moving, at: 1)
        #expect(f.state == .inFlight(since: 1, stuckReported: false) && f.awaitingReport)
        f.reported(FrameReport())
        // One frame counted, none of them settled.
        #expect(f.stats.presentedFrames == 1 && f.settledFrame == 0 && !f.awaitingReport)
        f.flipCompleted(vblank: 1.25, sequence: 1, animating: true)
        #expect(f.state == .idle)
        // The motion's time is up (the scene no longer moves) but the glass shows it mid-way.
        #expect(Self.frame(&f, at: 1.25) == FrameFlow.Frame(offset: .zero, shiftByScanout: false, fullCopy: false, redraw: true))
        f.present(.still, at: 1.25)
        f.reported(FrameReport())
        // The second frame is the settled one; after it nothing is due.
        #expect(f.stats.presentedFrames == 2 && f.settledFrame == 2)
        f.flipCompleted(vblank: 1.5, sequence: 2, animating: false)
        #expect(Self.frame(&f, at: 1.5) == nil)
    }

    @Test("a price lit on the tape: the frame is not the settled one, yet the still scene beside the band is not painted again")
    func tapeLit() {
        // A settled scene under a crawling tape whose price flashes: the flash fades, so the
        // frame is no settled picture (settled_frame stays), but the chart itself is at rest.
        var f = FrameFlow(burnIn: Self.noShift)
        f.needs.insert(.picture)
        _ = Self.frame(&f, at: 1, tape: true)
        f.present(.tapeLit, at: 1)
        f.reported(FrameReport())
        #expect(f.stats.presentedFrames == 1 && f.settledFrame == 0)
        f.flipCompleted(vblank: 1.25, sequence: 1, animating: true)
        // The band moves, the chart does not: a frame, with no redraw of the scene.
        #expect(Self.frame(&f, at: 1.25, tape: true) == FrameFlow.Frame(offset: .zero, shiftByScanout: false, fullCopy: false, redraw: false))
        f.present(.still, at: 1.25)
        f.reported(FrameReport())
        #expect(f.settledFrame == 2)
    }

    @Test("a report with no frame presented counts a frame but no settled one")
    func reportWithoutFrame() {
        var f = FrameFlow(burnIn: Self.noShift)
        f.reported(FrameReport(copiedBytes: 100, frameBytes: 400))
        #expect(f.stats.presentedFrames == 1 && f.settledFrame == 0 && f.presented == .nothing)
    }

    @Test("a failed present leaves no flip of ours in flight and no report awaited; the next frame waits 50 ms, doubling, at most 2 s, or a flip")
    func presentFailed() {
        var f = FrameFlow(burnIn: Self.noShift)
        f.present(.still, at: 3)
        f.presentFailed(at: 3)
        #expect(f.state == .refused(retryAt: 3 + 0.05) && f.presented == .reported(.still) && !f.awaitingReport)
        #expect(f.stats.presentedFrames == 0 && f.retryAt == 3 + 0.05)
        f.timer(at: 3.04, startedAt: 0)
        #expect(f.state == .refused(retryAt: 3 + 0.05))
        f.timer(at: 3 + 0.05, startedAt: 0)
        #expect(f.state == .idle)
        // Refused again: 0.1 s, then 0.2 s, ... 50 ms × 2^5 = 1.6 s, then the 2 s limit.
        for (i, wait) in [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2].enumerated() {
            let t = 10.0 * Double(i + 1)
            f.present(.still, at: t)
            f.presentFailed(at: t)
            #expect(f.retryAt == t + wait)
        }
        // The display's pending flip completes first: the next frame may go at once.
        f.flipCompleted(vblank: 80.5, sequence: 1, animating: false)
        #expect(f.state == .idle && f.retryAt == nil)
        // A frame taken ends the run of refusals: the next refusal waits 50 ms again.
        f.present(.still, at: 90)
        f.reported(FrameReport())
        f.present(.still, at: 91)
        f.presentFailed(at: 91)
        #expect(f.retryAt == 91 + 0.05)
    }

    @Test("under a crawling tape a still chart is not painted again; a copied shift without a tape is")
    func tape() {
        var f = FrameFlow(burnIn: Self.noShift)
        f.needs.insert(.picture)
        _ = Self.frame(&f, at: 1)
        f.present(.still, at: 1)
        f.reported(FrameReport())
        f.flipCompleted(vblank: 1.25, sequence: 1, animating: true)
        // Nothing changed but the tape: a frame for the band, the scene not redrawn.
        #expect(Self.frame(&f, at: 1.5, tape: true)
            == FrameFlow.Frame(offset: .zero, shiftByScanout: false, fullCopy: false, redraw: false))
    }

    @Test("burn-in every 60 s: by the display's scanout when it has the room, else copied whole")
    func burnIn() {
        // Radius 2: the spiral's first steps are (0,0), (1,0), (1,1), one every 60 s from the start.
        var f = FrameFlow(burnIn: BurnInShift(shift: 2, periodSeconds: 60))
        f.armBurnIn(at: 0, startedAt: 0)
        #expect(f.burnInDue == 60)
        f.needs.insert(.picture)
        // Offset (0,0) fits a scanout room of 2: by scanout; the first such frame is full.
        #expect(Self.frame(&f, at: 1, limit: 2) == FrameFlow.Frame(offset: .zero, shiftByScanout: true, fullCopy: true, redraw: true))
        f.present(.still, at: 1)
        f.flipCompleted(vblank: 1.25, sequence: 1, animating: false)
        f.timer(at: 59.5, startedAt: 0)
        #expect(f.needs.isEmpty && f.burnInDue == 60)
        f.timer(at: 60, startedAt: 0)
        // The step is owed, the next one at 120 s.
        #expect(f.needs == [.burnInStep] && f.burnInDue == 120)
        // Step 1, (1,0): the display moves its scanout, nothing is copied or drawn.
        #expect(Self.frame(&f, at: 60, limit: 2)
            == FrameFlow.Frame(offset: shifted(1, 0), shiftByScanout: true, fullCopy: false, redraw: false))
        f.present(.still, at: 60)
        f.flipCompleted(vblank: 60.25, sequence: 2, animating: false)
        f.timer(at: 120, startedAt: 0)
        // Step 2, (1,1), on a display with no scanout room: the shell copies it, every pixel moves.
        #expect(Self.frame(&f, at: 120, limit: 0)
            == FrameFlow.Frame(offset: shifted(1, 1), shiftByScanout: false, fullCopy: true, redraw: true))
    }

    @Test("the burn-in orbit counts from the start, or from now before it; off, nothing is timed")
    func burnInTiming() {
        var f = FrameFlow(burnIn: BurnInShift(shift: 2, periodSeconds: 60))
        // Before start at 30 s: the orbit is taken to start now, its first step at 30 + 60.
        f.armBurnIn(at: 30, startedAt: nil)
        #expect(f.burnInDue == 90)
        // Started at 10 s, armed at 100 s: 90 s into the orbit, the next step at 120 s, i.e. 130 s.
        f.armBurnIn(at: 100, startedAt: 10)
        #expect(f.burnInDue == 130)
        f.configure(burnIn: Self.noShift)
        f.armBurnIn(at: 100, startedAt: 10)
        #expect(f.burnInDue == nil)
    }

    @Test("how the burn-in moves the picture: fb-offset with the room and no copied turn, else copy; off at 0")
    func burnInMethod() {
        let f = FrameFlow(burnIn: BurnInShift(shift: 2, periodSeconds: 60))
        #expect(f.burnInMethod(shiftLimit: 2, rotatesByScanout: true) == "fb-offset")
        #expect(f.burnInMethod(shiftLimit: 1, rotatesByScanout: true) == "copy")
        #expect(f.burnInMethod(shiftLimit: 2, rotatesByScanout: false) == "copy")
        #expect(FrameFlow(burnIn: Self.noShift).burnInMethod(shiftLimit: 2, rotatesByScanout: true) == "off")
    }

    @Test("a flip stuck for more than 10 s stops the watchdog, said once; idle, the watchdog pings")
    func watchdog() {
        var f = FrameFlow(burnIn: Self.noShift)
        #expect(f.watchdog(at: 1_000_000) == .pingWatchdog)
        f.present(.still, at: 100)
        // 5 s and exactly 10 s in flight are no stuck flip yet.
        #expect(f.watchdog(at: 105) == .pingWatchdog)
        #expect(f.watchdog(at: 110) == .pingWatchdog)
        // 10.5 s: said with the whole seconds, 10; then no ping and no word.
        #expect(f.watchdog(at: 110.5)
            == .log(.error, "display: a flip has been pending for 10 s; stopping the watchdog so systemd restarts the daemon"))
        #expect(f.state == .inFlight(since: 100, stuckReported: true))
        #expect(f.watchdog(at: 125) == nil)
        f.flipCompleted(vblank: 126, sequence: 1, animating: false)
        #expect(f.watchdog(at: 126) == .pingWatchdog)
    }

    @Test("missed vblanks count while the picture moves; after a still flip, a lit screen or a lost master the gap is none")
    func missedVblanks() {
        var f = FrameFlow(burnIn: Self.noShift)
        f.flipCompleted(vblank: 1, sequence: 1, animating: true)
        f.flipCompleted(vblank: 2, sequence: 2, animating: true)
        // 2 -> 5 while moving: vblanks 3 and 4 were missed.
        f.flipCompleted(vblank: 3, sequence: 5, animating: true)
        #expect(f.stats.missedVblanks == 2 && f.stats.completedFlips == 3)
        // A still flip, then 6 -> 20: an idle pause, no miss.
        f.flipCompleted(vblank: 4, sequence: 6, animating: false)
        f.flipCompleted(vblank: 5, sequence: 20, animating: true)
        #expect(f.stats.missedVblanks == 2)
        // Moving, 20 -> 30 after the screen came on: the count starts again.
        f.screenLit()
        f.flipCompleted(vblank: 6, sequence: 30, animating: true)
        #expect(f.stats.missedVblanks == 2)
        #expect(f.needs == [.wholeCopy, .picture])
        // Moving, 30 -> 40 with nothing between: 31...39, nine missed.
        f.flipCompleted(vblank: 7, sequence: 40, animating: true)
        #expect(f.stats.missedVblanks == 11)
        f.displayChanged(.masterLost)
        f.flipCompleted(vblank: 8, sequence: 50, animating: true)
        #expect(f.stats.missedVblanks == 11)
        f.vtReleased()
        f.flipCompleted(vblank: 9, sequence: 60, animating: true)
        #expect(f.stats.missedVblanks == 11)
    }

    @Test("input to flip: from the input's time to the vblank of the frame that answers it")
    func inputLatency() {
        var f = FrameFlow(burnIn: Self.noShift)
        // A touch at 1.25 s (µs on the input's clock, the core's seconds' clock).
        f.pendingInputMicros = 1_250_000
        f.needs.insert(.picture)
        _ = Self.frame(&f, at: 1.25)
        #expect(f.pendingInputMicros == nil)
        f.present(.still, at: 1.25)
        f.reported(FrameReport())
        // Its frame is on the glass at 1.5 s: 250,000 µs = 250 ms.
        f.flipCompleted(vblank: 1.5, sequence: 1, animating: false)
        #expect(f.stats.inputLatencyPercentile(0.5) == 250)
        // The next frame answers no input: its flip adds no sample (the 99th percentile of one
        // sample is that sample).
        f.needs.insert(.picture)
        _ = Self.frame(&f, at: 1.5)
        f.present(.still, at: 1.5)
        f.flipCompleted(vblank: 1.75, sequence: 2, animating: false)
        #expect(f.stats.inputLatencyPercentile(0.99) == 250)
        #expect(f.stats.summary.contains("(1 samples)"))
    }

    @Test("the display's changes: a flip in flight never completes; back, everything is copied again")
    func displayChanges() {
        var f = FrameFlow(burnIn: Self.noShift)
        f.flipCompleted(vblank: 10, sequence: 1, animating: false)
        f.needs = []
        f.present(.still, at: 10.1)
        f.displayChanged(.connectorLost)
        #expect(f.state == .idle && f.needs.isEmpty)
        f.present(.still, at: 10.1)
        f.displayChanged(.connectorReturned)
        // Idle, owed a whole new picture, and the next frame drawn for now: no vblank is known of it.
        #expect(f.state == .idle && f.needs == [.wholeCopy, .picture])
        #expect(f.frameTime(at: 10.1, refreshHz: 4) == 10.1)
        f.flipCompleted(vblank: 20, sequence: 2, animating: false)
        f.present(.still, at: 20.1)
        f.flipForgotten()
        #expect(f.state == .idle)
        f.present(.still, at: 20.1)
        f.displayOpened()
        #expect(f.state == .idle && f.frameTime(at: 20.1, refreshHz: 4) == 20.1)
    }
}

/// The core and a display that refuses a present while its flip is pending (KMS answers EBUSY, the
/// headless display "a flip is pending"). config-extremes.py hung so: a reload into outputs turned
/// 90° told the core the display was opened again while its flip was pending; the core presented,
/// was refused, presented again at once, for ever, inside one batch of events, so neither the
/// flip's completion nor SIGTERM was ever read.
@Suite struct RefusedPresentTests {
    @Test("the display opened again with its flip pending: one refusal, and the frame goes after the flip, not in a loop")
    func refusedWhileFlipPending() {
        let d = CoreFixtures.started(Config.watchlist(["A"])) { $0.refusesWhileFlipPending = true }
        d.run(for: 3)
        #expect(d.refusals.isEmpty)
        // A banner: a frame goes out and its flip is pending (a 10 Hz display: for 0.1 s).
        d.send(.control(id: 1, .message(text: "hello", seconds: 60)))
        let presents = d.presents.count
        #expect(presents > 0)
        // The shell applies a turn and says the display opened again, as it does after a reload.
        d.send(.displayOpened(d.display))
        #expect(d.refusals.count == 1, "\(d.refusals.count) presents refused in one batch")
        #expect(d.presents.count == presents)
        // Asked again 50 ms later, before the 10 Hz display's flip completes (0.1 s after the
        // banner's frame): refused once more, then waiting 0.1 s; the flip completes meanwhile
        // and the frame goes out at once, the banner in it, copied whole.
        d.run(for: 0.5)
        #expect(d.refusals.map(\.time.mono) == [d.refusals[0].time.mono, d.refusals[0].time.mono + 0.05])
        let after = d.presents.dropFirst(presents)
        #expect(after.first?.value.banner == "hello" && after.first?.value.fullCopy == true)
        #expect(d.logs.filter { $0.value.contains("a flip is pending") }.count == 2)
    }
}
