import CoreDriver
import DisplayModel
import Feed
@testable import KioskCore
import Testing

/// HDMI-CEC and presence keys: the frames' bytes, and what the core tells the TV across days of a
/// schedule, an idle blank, touches, a TV switched off by its remote, a TV that does not answer and
/// an adapter that goes away — on the manual clock.
@Suite("HDMI-CEC and presence")
struct CECTests {
    // MARK: Frames

    @Test("the frames Tickerboard sends: standby, image view on + active source, power status")
    func frames() {
        let pa: UInt16 = 0x1000
        #expect(CECMessage.messages(for: .standby, from: 4, physicalAddress: pa).map(\.bytes) == [[0x40, 0x36]])
        #expect(CECMessage.messages(for: .wake, from: 4, physicalAddress: pa).map(\.bytes)
                == [[0x40, 0x04], [0x4F, 0x82, 0x10, 0x00]])
        #expect(CECMessage.messages(for: .queryPower, from: 8, physicalAddress: pa).map(\.bytes) == [[0x80, 0x8F]])
        #expect(CECMessage.messages(for: .activeSource, from: 4, physicalAddress: 0x2100).map(\.description) == ["4f:82:21:00"])
    }

    @Test("what a received frame means, and the protocol's answers")
    func received() {
        let us: UInt16 = 0x1000
        #expect(CECMessage(bytes: [0x0F, 0x36]).news(ourPhysicalAddress: us) == .standbyReceived(from: 0))
        #expect(CECMessage(bytes: [0x04, 0x36]).news(ourPhysicalAddress: us) == .standbyReceived(from: 0))
        #expect(CECMessage(bytes: [0x04, 0x90, 0x01]).news(ourPhysicalAddress: us) == .tvPower(.standby))
        #expect(CECMessage(bytes: [0x04, 0x90, 0x02]).news(ourPhysicalAddress: us) == .tvPower(.turningOn))
        // A power report from another device than the TV, or without its operand, is nothing.
        #expect(CECMessage(bytes: [0x54, 0x90, 0x01]).news(ourPhysicalAddress: us) == nil)
        #expect(CECMessage(bytes: [0x04, 0x90]).news(ourPhysicalAddress: us) == nil)
        #expect(CECMessage(bytes: [0x0F, 0x85]).news(ourPhysicalAddress: us) == .activeSourceRequested)
        #expect(CECMessage(bytes: [0x0F, 0x86, 0x10, 0x00]).news(ourPhysicalAddress: us) == .activeSourceRequested)
        #expect(CECMessage(bytes: [0x0F, 0x86, 0x20, 0x00]).news(ourPhysicalAddress: us) == nil)
        #expect(CECMessage(bytes: [0x04]).news(ourPhysicalAddress: us) == nil)  // a poll
        // Asked for our power status: the screen's. An opcode we do not act on: Feature Abort.
        #expect(CECMessage(bytes: [0x04, 0x8F]).answer(from: 4, screenOn: true)?.bytes == [0x40, 0x90, 0x00])
        #expect(CECMessage(bytes: [0x04, 0x8F]).answer(from: 4, screenOn: false)?.bytes == [0x40, 0x90, 0x01])
        #expect(CECMessage(bytes: [0x04, 0x9A]).answer(from: 4, screenOn: true)?.bytes == [0x40, 0x00, 0x9A, 0x00])
        // Never to a broadcast, to another device, to a Feature Abort, or to what is news.
        #expect(CECMessage(bytes: [0x0F, 0x9A]).answer(from: 4, screenOn: true) == nil)
        #expect(CECMessage(bytes: [0x08, 0x9A]).answer(from: 4, screenOn: true) == nil)
        #expect(CECMessage(bytes: [0x04, 0x00, 0x8F, 0x00]).answer(from: 4, screenOn: true) == nil)
        #expect(CECMessage(bytes: [0x04, 0x36]).answer(from: 4, screenOn: true) == nil)
        #expect(CECMessage(bytes: [0x04, 0x90, 0x00]).answer(from: 4, screenOn: true) == nil)
    }

    @Test("[power] cec reads off, on, auto and a device path")
    func setting() {
        #expect(CECSetting("auto") == .auto)
        #expect(CECSetting("OFF") == .off)
        #expect(CECSetting("on") == .on)
        #expect(CECSetting("/dev/cec1") == .device("/dev/cec1"))
        #expect(CECSetting("cec1") == nil)
        #expect(CECSetting("/dev/cec 1") == nil)
        #expect(Config.parse("[power]\ncec = /dev/cec2\n", file: "t.conf").0.cec == .device("/dev/cec2"))
        #expect(Config().cec == .auto)
    }

    // MARK: The core

    static let ready = CECNews.ready(device: "/dev/cec1", physicalAddress: 0x1000, logicalAddress: 4)

    /// Berlin, `schedule = Mon-Sun 07:00-22:00`, started at `wall`, the adapter ready at once.
    static func started(wall: Double, idle: Double = 0, cec: CECSetting = .on) throws -> CoreDriver {
        var config = Config.watchlist(["A"])
        config.schedule = try parseSchedule("Mon-Sun 07:00-22:00").get()
        config.blankAfterIdleSeconds = idle
        config.cec = cec
        let d = CoreDriver(config: config, localZone: CoreDriver.berlin, start: KioskTime(mono: 1000, wall: wall), writesStatus: true)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: SampleMarket.daily()))
        d.send(.cec(ready))
        return d
    }

    /// Wed 2026-12-02 21:59 CET.
    static let wednesdayEvening = 1_796_245_140.0
    /// Thu 2026-12-03 07:00 CET.
    static let thursdayMorning = 1_796_277_600.0

    /// The requests sent from `since` (wall seconds), with the wall time of each.
    static func sent(_ d: CoreDriver, since: Double = 0) -> [(Double, CECRequest)] {
        d.cecRequests.filter { $0.time.wall >= since && $0.value != .queryPower }.map { ($0.time.wall, $0.value) }
    }

    @Test("the schedule's off is a standby to the TV, its on an image view on + active source, to the second")
    func scheduleStandbyAndWake() throws {
        let d = try Self.started(wall: Self.wednesdayEvening)
        #expect(Self.sent(d).map(\.1) == [.wake])
        d.run(for: 2 * 86_400)
        let got = Self.sent(d, since: Self.wednesdayEvening + 1)
        let want: [(Double, CECRequest)] = [
            (Self.wednesdayEvening + 60, .standby),  // 22:00
            (Self.thursdayMorning, .wake),           // 07:00
            (Self.thursdayMorning + 15 * 3600, .standby),
            (Self.thursdayMorning + 86_400, .wake),
        ]
        #expect(got.count == want.count, "\(got)")
        for (g, w) in zip(got, want) {
            #expect(g.1 == w.1)
            #expect(abs(g.0 - w.0) < 1.5, "\(g.1) at \(g.0), expected \(w.0)")
        }
        // While on, the TV's power is asked once a minute; while off, never.
        let queries = d.cecRequests.filter { $0.value == .queryPower }.map(\.time.wall)
        #expect(!queries.contains { $0 > Self.wednesdayEvening + 61 && $0 < Self.thursdayMorning })
        let onDay = queries.filter { $0 >= Self.thursdayMorning && $0 < Self.thursdayMorning + 15 * 3600 }
        #expect(onDay.count >= 15 * 60 - 2 && onDay.count <= 15 * 60 + 1, "\(onDay.count) queries in 15 h")
        #expect(d.core.status().cec == "tv-on")
    }

    @Test("a touch outside the schedule wakes the TV with the screen, and the TV goes back to standby with it")
    func touchWakesTV() throws {
        let d = try Self.started(wall: Self.wednesdayEvening)
        d.run(for: 3600)  // 22:59, off
        #expect(!d.core.screenOn && d.core.status().cec == "tv-standby")
        let touched = d.time.wall
        d.send(.gesture(.scrubBegan(x: 10, y: 10), inputMicros: nil))
        #expect(d.core.screenOn)
        #expect(Self.sent(d, since: touched).map(\.1) == [.wake])
        d.run(for: 130)  // the touch's two minutes
        #expect(!d.core.screenOn)
        #expect(Self.sent(d, since: touched).map(\.1) == [.wake, .standby])
    }

    /// Found by the CEC E2E: the schedule's end came (a clock step) during the draw-in, with a flip
    /// in flight that KMS lets land and forgets when it powers down; the woken screen drew nothing.
    @Test("a screen switched off with a flip in flight draws again when woken")
    func offMidFlip() throws {
        let d = try Self.started(wall: Self.wednesdayEvening + 50)
        d.send(.gesture(.tap(x: 1, y: 1), inputMicros: nil))
        d.send(.key(.nextRange))  // a morph: frames follow each other
        d.run(for: 0.35)
        #expect(d.core.model?.isAnimating(at: d.time.mono) == true)
        d.stepWallClock(by: 600)
        d.send(.clockStepped)
        #expect(!d.core.screenOn)
        let frames = d.presents.count
        d.send(.gesture(.scrubBegan(x: 10, y: 10), inputMicros: nil))
        d.run(for: 1)
        #expect(d.core.screenOn)
        #expect(d.presents.count > frames, "no frame after the wake")
    }

    @Test("a presence key (no command) wakes the screen and the TV like a touch, and holds nothing")
    func presenceKeyWakes() throws {
        let d = try Self.started(wall: Self.wednesdayEvening + 3600, idle: 60)
        d.run(for: 10)
        #expect(!d.core.screenOn)
        let range = d.core.model?.range
        let pressed = d.time.wall
        d.send(.presence)
        #expect(d.core.screenOn)
        #expect(d.logs.contains { $0.value == "power: screen on: a presence key" })
        #expect(Self.sent(d, since: pressed).map(\.1) == [.wake])
        #expect(d.core.model?.range == range && !d.core.paused)
        // It lights the screen for the idle time, like a touch; a second key inside it restarts it.
        d.run(for: 50)
        d.send(.presence)
        d.run(for: 50)
        #expect(d.core.screenOn)
        d.run(for: 11)
        #expect(!d.core.screenOn)
        #expect(Self.sent(d, since: pressed).map(\.1) == [.wake, .standby])
    }

    @Test("a TV switched off by its remote stays off: no standby, no wake by touch or key, until the next scheduled on")
    func offByHand() throws {
        // Thu 10:00, on by the schedule, blank after 5 min idle.
        let d = try Self.started(wall: Self.thursdayMorning + 3 * 3600, idle: 300)
        d.run(for: 60)
        let before = d.cecRequests.count
        d.send(.cec(.standbyReceived(from: 0)))
        #expect(d.core.status().cec == "tv-off-by-hand")
        #expect(d.logs.contains { $0.value.contains("switched off by hand") })
        d.run(for: 600)  // the idle blank: nothing to tell a TV that is off
        #expect(!d.core.screenOn)
        d.send(.gesture(.scrubBegan(x: 10, y: 10), inputMicros: nil))
        d.send(.presence)
        #expect(d.core.screenOn)
        #expect(Self.sent(d).dropFirst(before).filter { $0.1 != .queryPower }.isEmpty, "\(Self.sent(d).dropFirst(before))")
        // Friday 07:00, the next scheduled on: woken again.
        d.run(until: d.time.mono + (Self.thursdayMorning + 86_400 - d.time.wall) + 1)
        let friday = Self.sent(d, since: Self.thursdayMorning + 86_400 - 1).map(\.1)
        #expect(friday.first == .wake, "\(friday)")
        #expect(d.core.status().cec == "tv-on")
    }

    @Test("a reported standby counts as by hand only after the wake's grace; the TV on again ends it")
    func reportedStandby() throws {
        let d = try Self.started(wall: Self.thursdayMorning + 3600)
        // Just woken: a TV still warming up may say standby.
        d.send(.cec(.tvPower(.standby)))
        #expect(d.core.status().cec == "tv-on")
        d.run(for: 60)
        d.send(.cec(.tvPower(.standby)))
        #expect(d.core.status().cec == "tv-off-by-hand")
        d.send(.cec(.tvPower(.on)))
        #expect(d.core.status().cec == "tv-on")
        // The TV asks who is showing: we say so.
        let n = d.cecRequests.count
        d.send(.cec(.activeSourceRequested))
        #expect(d.cecRequests.dropFirst(n).map(\.value) == [.activeSource])
    }

    @Test("a TV that never acknowledges: logged once, sent again after 5, 10, 20 … s (at most 5 min), frames go on")
    func notAnswering() throws {
        let d = try Self.started(wall: Self.wednesdayEvening)
        d.run(for: 61)  // 22:00: standby
        #expect(Self.sent(d).last?.1 == .standby)
        var retries: [Double] = []
        let start = d.time.mono
        d.send(.cec(.failed(.standby, reason: "nack")))
        #expect(d.core.status().cec == "not-answering")
        for _ in 0..<9 {
            let n = d.cecRequests.count
            var waited = 0
            while !d.cecRequests.dropFirst(n).contains(where: { $0.value == .standby }) && waited < 400 {
                d.run(for: 1)
                waited += 1
            }
            guard let last = d.cecRequests.dropFirst(n).last(where: { $0.value == .standby }) else { break }
            retries.append(last.time.mono - start)
            d.send(.cec(.failed(.standby, reason: "nack")))
        }
        let gaps = zip(retries, [0] + retries).map { $0 - $1 }
        #expect(gaps.map { ($0 * 10).rounded() / 10 } == [5, 10, 20, 40, 80, 160, 300, 300, 300], "\(gaps)")
        #expect(d.logs.filter { $0.value.contains("was not delivered") }.count == 1)
        // A wake while it still fails starts its own backoff, and is not said again.
        d.send(.presence)
        #expect(d.cecRequests.last?.value == .wake)
        d.send(.cec(.failed(.wake, reason: "nack")))
        #expect(d.core.cecStatus == "not-answering")
        let sentBefore = d.cecRequests.count
        d.run(for: 5.5)
        #expect(d.cecRequests.dropFirst(sentBefore).contains { $0.value == .wake })
        #expect(d.logs.filter { $0.value.contains("was not delivered") }.count == 1)
        d.run(for: 130)  // the presence's two minutes: off again, standby wanted
        d.send(.cec(.sent(.standby)))
        #expect(d.core.status().cec == "tv-standby")
        #expect(d.logs.contains { $0.value.contains("acknowledged standby again") })
        // The screen's own work never waited: a touch draws at once.
        let presents = d.presents.count
        d.send(.gesture(.scrubBegan(x: 10, y: 10), inputMicros: nil))
        d.run(for: 1)
        #expect(d.presents.count > presents)
    }

    @Test("an adapter that goes away: said once, nothing sent to it, the screen goes on; it comes back in step")
    func adapterGone() throws {
        let d = try Self.started(wall: Self.thursdayMorning + 3600)
        d.send(.cec(.gone(reason: "/dev/cec1: no such device")))
        #expect(d.core.status().cec == "no-adapter")
        #expect(d.logs.filter { $0.value.contains("adapter is gone") }.count == 1)
        let n = d.cecRequests.count
        d.run(for: 15 * 3600)  // past 22:00: the screen goes off without it
        #expect(!d.core.screenOn)
        #expect(d.cecRequests.count == n)
        // Back (re-plugged): told what the screen is now.
        d.send(.cec(Self.ready))
        #expect(d.cecRequests.dropFirst(n).map(\.value) == [.standby])
    }

    /// Issue 49 item 7: many TVs drop hot-plug in standby; vc4 then invalidates the physical address
    /// and the adapter unconfigures (cec-adap.c: cec_phys_addr_invalidate). The link used to report
    /// that as "gone" and the morning's scheduled on sent nothing. The CEC core lets an unconfigured
    /// adapter send exactly Image View On from Unregistered to the TV (cec_transmit_msg_fh).
    @Test("an adapter without a physical address: no standby, but the scheduled on still wakes the TV")
    func wakeWithoutAddress() throws {
        let d = try Self.started(wall: Self.wednesdayEvening)
        d.run(for: 120)  // 22:01: the screen and the TV are off
        #expect(!d.core.screenOn && d.core.status().cec == "tv-standby")
        d.send(.cec(.addressLost(device: "/dev/cec1", reason: "/dev/cec1 lost its physical address")))
        #expect(d.core.status().cec == "no-address")
        #expect(d.logs.filter { $0.value.contains("still wakes the TV") }.count == 1)
        let n = d.cecRequests.count
        d.run(for: Self.thursdayMorning + 30 - d.time.wall)  // 07:00:30
        #expect(d.core.screenOn)
        #expect(d.cecRequests.dropFirst(n).map(\.value) == [.wake], "\(d.cecRequests.dropFirst(n).map(\.value))")
        // Not acknowledged (the TV off the bus): said, and not retried without an address.
        d.send(.cec(.failed(.wake, reason: "nack")))
        #expect(d.core.status().cec == "no-address")
        d.run(for: 60)
        #expect(d.cecRequests.dropFirst(n).filter { $0.value != .queryPower }.map(\.value) == [.wake])
        #expect(!d.logs.contains { $0.value.contains("retrying with backoff") })
        // The TV on again gives the address back: the claim is announced and the talk goes on.
        d.send(.cec(Self.ready))
        #expect(d.core.status().cec == "tv-on")
        // Unbound while without an address: said once as gone.
        d.send(.cec(.addressLost(device: "/dev/cec1", reason: "lost")))
        d.send(.cec(.gone(reason: "/dev/cec1: no such device")))
        #expect(d.core.status().cec == "no-adapter")
        #expect(d.logs.filter { $0.value.contains("adapter is gone") }.count == 1)
    }

    @Test("auto without an adapter is quiet; on without one says so once; off sends nothing")
    func settings() throws {
        let autoQuiet = CoreDriver(config: { var c = Config.watchlist(["A"]); c.cec = .auto; return c }())
        autoQuiet.send(.start)
        autoQuiet.send(.cec(.gone(reason: "no HDMI-CEC adapter (/dev/cec*)")))
        #expect(!autoQuiet.logs.contains { $0.value.hasPrefix("cec:") })
        #expect(autoQuiet.core.status().cec == "no-adapter")
        let onLoud = CoreDriver(config: { var c = Config.watchlist(["A"]); c.cec = .on; return c }())
        onLoud.send(.start)
        onLoud.send(.cec(.gone(reason: "no HDMI-CEC adapter (/dev/cec*)")))
        onLoud.send(.cec(.gone(reason: "no HDMI-CEC adapter (/dev/cec*)")))
        #expect(onLoud.logs.filter { $0.value.hasPrefix("cec:") }.count == 1)
        let off = try Self.started(wall: Self.wednesdayEvening, cec: .off)
        off.run(for: 86_400)
        #expect(off.cecRequests.isEmpty && off.core.status().cec == "off")
    }
}
