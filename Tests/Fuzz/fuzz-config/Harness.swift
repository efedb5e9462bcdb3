// libFuzzer harness: the config parser plus every consumer of its values. A config with no errors
// (what check-config accepts, data files aside) builds a KioskCore exactly as the daemon does and
// is driven through start-up, a display, data, cycling, touch, keys, a reload and exit on a manual
// clock; the shell's own consumers (touch mapping, calibration, gestures, the headless display
// size) and a few frames are exercised too. Any trap is a crash libFuzzer keeps.
import Chart
@testable import Commands
import Display
import DisplayModel
import Feed
import FuzzSupport
import Input
import InputModel
@testable import Kiosk
@testable import KioskCore
import Text

nonisolated(unsafe) let fonts: FontSet = {
    do { return try FontSet.load() } catch { fatalError("fuzz-config needs the fonts: \(error)") }
}()
nonisolated(unsafe) var zoneCache: [String: ExchangeTimeZone?] = [:]
// A year of daily bars and a day of minutes: every range has points, and an execution stays cheap.
let daily = PriceSeries(name: "S", interval: .daily, bars: Array(SampleMarket.daily().bars.suffix(260)))
let intraday = PriceSeries(name: "S", interval: .intraday(seconds: 60), bars: Array(SampleMarket.intraday().bars.suffix(390)))
let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin", posixRule: "CET-1CEST,M3.5.0,M10.5.0/3")

@main enum Harness { static func main() { runFuzzer(fuzz) } }

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let (config, issues) = Config.parse(text, file: "fuzz.conf")
    for issue in issues {
        fuzzCheck(issue.description.hasPrefix("fuzz.conf:"), "issues are located: \(issue)")
        fuzzCheck(!issue.description.contains("\n"), "issues are one line")
    }
    // A line that is no config (no "=", no section, no comment) is never echoed in its own message
    // (issue 54 item 19: a drop-in linked to a key file printed the key): no message of that line
    // holds it whole (but a line that is nothing but a key's name, said by that name).
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    for (index, raw) in lines.enumerated() {
        let line = Substring(raw.hasSuffix("\r") ? raw.dropLast() : raw).trimmingWhitespace()
        guard line.count >= 12, !line.contains("="), !line.hasPrefix("#"), !line.hasPrefix(";"), !line.hasPrefix("[") else { continue }
        let keyName = ConfigFile.unparsed(line).hasSuffix("beginning with \"\(line.lowercased())\" (the rest not shown)")
        fuzzCheck(keyName || !issues.contains { $0.line == index + 1 && $0.message.contains(line) },
                  "line \(index + 1), not config text, is echoed: \(line.count) characters")
    }
    // A reload of the same text must agree with the parse on whether it is acceptable (checked on
    // one input in eight: the parse is the same work again).
    let errors = issues.contains { $0.severity == .error }
    // The same text as a main file (its first line) and a drop-in (the rest): every issue names one
    // of the two files, and nothing traps.
    if size % 4 == 1, let cut = text.firstIndex(of: "\n") {
        let (_, split) = Config.parse([(String(text[..<cut]), "main.conf"), (String(text[text.index(after: cut)...]), "conf.d/10.conf")])
        for issue in split {
            fuzzCheck(issue.file == "main.conf" || issue.file == "conf.d/10.conf", "drop-in issues are located: \(issue)")
        }
    }
    if size % 8 == 0 {
        let outcome = ConfigReload.reload(current: Config(), text: text, file: "fuzz.conf")
        fuzzCheck(outcome.applied == !errors, "reload applies exactly the configs without errors")
    }
    if errors { return 0 }

    // The outputs through a hotplug story on a two-HDMI card: no connector ever drives two outputs,
    // a driven output has a frame, and the span's offsets are in order.
    var outputs = OutputAssignment(outputs: config.effectiveOutputs)
    let hd = ModeRequest(width: 1280, height: 720, refreshHz: 60), fhd = ModeRequest(width: 1920, height: 1080)
    let plugs: [(ModeRequest?, ModeRequest?)] = [(hd, fhd), (nil, fhd), (nil, nil), (fhd, nil), (hd, hd)]
    for (a, b) in plugs.prefix(size % 6) {
        _ = outputs.update([.init(name: "HDMI-A-1", connected: a != nil, modes: a.map { [$0] } ?? []),
                            .init(name: "HDMI-A-2", connected: b != nil, modes: b.map { [$0] } ?? [])])
        let driven = outputs.states.compactMap(\.connector)
        fuzzCheck(Set(driven).count == driven.count, "a connector drives one output: \(driven)")
        fuzzCheck(outputs.states.allSatisfy { $0.connector == nil || ($0.frameWidth > 0 && $0.frameHeight > 0) }, "driven outputs have a frame")
        let span = outputs.spanOffsets(showsTape: config.showsTape).offsets.compactMap { $0 }
        fuzzCheck(span == span.sorted() && span.allSatisfy { $0 >= 0 }, "span offsets ascend: \(span)")
    }

    // What the daemon's shell does with the values.
    var zones: [String: ExchangeTimeZone] = [:]
    for inst in config.instruments {
        if zoneCache[inst.timeZone] == nil { zoneCache[inst.timeZone] = .some(try? ExchangeTimeZone(identifier: inst.timeZone)) }
        if let z = zoneCache[inst.timeZone] ?? nil { zones[inst.id] = z }
    }
    // With [output] sections the core under test is one output's (its scene in the single-screen keys).
    let outputIndex = Int(size / 2) % config.effectiveOutputs.count
    let setup = KioskSetup(config: config.forOutput(outputIndex), zones: zones, localZone: size % 2 == 0 ? .utc : berlin,
                           configFile: "fuzz.conf")
    let headless = config.mode ?? ModeRequest(width: 64, height: 48)
    fuzzCheck(headless.width <= 16_384 && headless.height <= 16_384, "a mode the config accepts is drawable")
    if let hz = headless.refreshHz { fuzzCheck(hz.isFinite && hz > 0, "refresh rate finite") }
    let calibration = config.calibration.flatMap { CalibrationMatrix($0.map(Float.init)) }
    if let calibration { _ = calibration.apply(x: 0.5, y: 0.5) }
    let turns = config.rotation.map { $0 / 90 } ?? 0
    // The safe area's margins (the shell's) and touches told inside them.
    let margins = OutputScreen.margins(width: 64, height: 48, safeArea: config.safeArea)
    fuzzCheck(margins.x >= 0 && 2 * margins.x < 64 && margins.y >= 0 && 2 * margins.y < 48, "a safe area leaves a picture")
    let mapping = TouchMapping(panelWidth: 64, panelHeight: 48, quarterTurns: turns, marginX: margins.x, marginY: margins.y)
    if let p = mapping.logicalPoint(x: 10, y: 10) {
        fuzzCheck(p.x >= 0 && p.x < Double(mapping.logicalWidth) && p.y >= 0 && p.y < Double(mapping.logicalHeight), "a touch lands in the picture")
    }

    let core = KioskCore(setup: setup, fonts: fonts, watchdogInterval: 15, writesStatus: true, statusInterval: 1)
    var now = KioskTime(mono: 1000, wall: 1_796_000_000)
    /// Each output's flip in flight (a config with `[output]` sections drives several).
    var flipDue: [Int: (due: Double, sequence: UInt64)] = [:]
    var sequence: UInt64 = 0
    var gestures = GestureRecognizer(width: 64, height: 48)
    let display = DisplayInfo(width: 64, height: 48, refreshHz: 10)
    func send(_ event: KioskEvent, output: Int = 0) {
        var queue = [(event, output)]
        while !queue.isEmpty {
            let (next, from) = queue.removeFirst()
            for routed in core.handle(next, at: now, output: from) {
                let output = routed.output ?? 0
                fuzzCheck(output >= 0 && output < core.outputCount, "an effect names an output the core drives")
                switch routed.effect {
                case .present(let plan):
                    fuzzCheck(plan.time.isFinite, "frame time finite")
                    sequence += 1
                    flipDue[output] = (now.mono + 0.1, sequence)
                    queue.append((.framePresented(FrameReport()), output))
                case .openDisplay, .reopenDisplay: queue.append((.displayOpened(display), output))
                case .setPowered(let on): if !on { queue.append((.screenOffApplied(dpms: sequence % 2 == 0), output)) }
                case .layoutChanged(let turns, let width, let height):
                    fuzzCheck((0...3).contains(turns), "quarter turns 0...3")
                    gestures.resize(width: Double(width), height: Double(height))
                case .writeStatus(let write): _ = write.status.json
                default: break
                }
            }
        }
    }
    func run(for seconds: Double, steps: Int = 80) {
        let end = now.mono + seconds
        var count = 0
        while count < steps {
            count += 1
            let flip = flipDue.min { ($0.value.due, $0.key) < ($1.value.due, $1.key) }
            let next = [flip?.value.due, core.nextDeadline].compactMap { $0 }.min()
            guard let next, next <= end else { break }
            fuzzCheck(next.isFinite, "deadlines finite")
            now = now.advanced(by: max(0, next - now.mono))
            if let flip, flip.value.due <= next {
                flipDue[flip.key] = nil
                send(.flipCompleted(vblank: now.mono, sequence: flip.value.sequence), output: flip.key)
            } else {
                send(.timer)
            }
        }
        now = now.advanced(by: max(0, end - now.mono))
        send(.timer)
    }

    send(.start)
    for inst in config.instruments {
        if inst.dailyFile != nil { send(.series(instrumentID: inst.id, slot: .daily, series: daily)) }
        if inst.intradayFile != nil { send(.series(instrumentID: inst.id, slot: .intraday, series: intraday)) }
    }
    send(.dataProblems([:]))
    run(for: 30, steps: 40)
    for event: InputEvent in [.touchDown(slot: 0, x: 30, y: 20, time: 1), .touchFrame(time: 1),
                              .touchMotion(slot: 0, x: 5, y: 21, time: 50_000), .touchFrame(time: 50_000),
                              .touchUp(slot: 0, time: 90_000), .touchFrame(time: 90_000)] {
        // Sent after the recognizer returns: a gesture's effects may resize the recognizer
        // (a layout change), which must not happen while it is inside `process`.
        var recognized: [Gesture] = []
        gestures.process(event) { recognized.append($0) }
        for gesture in recognized { send(.gesture(gesture, inputMicros: nil)) }
    }
    send(.key(.nextRange))
    send(.key(.selectRange(size % 7)))
    run(for: 90, steps: 40)
    if let m = core.model {
        let renderer = SceneRenderer()
        _ = renderer.render(m, at: now.mono)
        _ = renderer.render(m, at: now.mono + 0.3)
    }
    send(.configure(setup))
    run(for: 3 * 86_400, steps: 30)
    send(.statisticsRequested(""))
    send(.terminate)
    return 0
}
