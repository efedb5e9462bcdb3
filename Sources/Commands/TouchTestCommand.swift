import Display
import DisplayModel
import Input
import InputModel
import Kiosk
import KioskCore
import LinuxIO
import Raster
import Text

#if canImport(Glibc)
import Glibc
#endif

/// `tickerboard touch-test`: a screen for installers checking rotation and calibration, set up the
/// way `run` would from the config. It shows a target in each corner, every contact as a ring
/// labelled with its slot and position, and the touch device's report rate; tapping the four
/// targets in turn prints the `calibration = ...` line for the config's `[input]` section. Runs
/// until SIGTERM/SIGINT (or `--seconds`).
enum TouchTestCommand {
    static let help = """
        usage: tickerboard touch-test [--config FILE] [--display auto|kms|fbdev] [--device PATH]
                                      [--rotation auto|0|90|180|270] [--calibration "a b c d e f"|none]
                                      [--seat SEAT] [--seconds S]

        Shows corner targets and every touch contact with its slot; the ring must land on the target.
        Tap the highlighted target in each corner in turn: the line `calibration = a b c d e f` is
        printed (and shown) for the [input] section of the config; restart the daemon to use it.
        The display (backend, device, connector, mode), rotation (or the panel's orientation),
        calibration and seat come from the config
        (--config FILE, default /etc/tickerboard/tickerboard.conf when present); options override it.
          --calibration none  measure without the configured matrix (when it is far off)
        Exit with Ctrl-C (or after --seconds).
        """

    struct Options: Equatable {
        var configPath: String?
        var display: DisplayBackends.Choice?
        var device: String?
        /// Clockwise degrees; nil: the config's, else the panel's orientation.
        var rotation: Int??
        /// nil: the config's; `.identity` for `none`.
        var calibration: CalibrationMatrix?
        var seat: String?
        var seconds: Double?
    }

    /// The options of `raw`; nil when help was asked for.
    static func parse(_ raw: [String]) throws(UsageError) -> Options? {
        var args = Arguments(command: "touch-test", raw)
        if args.wantsHelp() { return nil }
        var o = Options()
        o.configPath = try args.option("--config")
        let choices = DisplayBackends.Choice.configurable
        o.display = try args.value("--display", expected: DisplayBackends.Choice.names(choices)) {
            DisplayBackends.Choice(rawValue: $0).flatMap { choices.contains($0) ? $0 : nil }
        }
        o.device = try args.option("--device")
        o.rotation = try args.value("--rotation", expected: "auto, 0, 90, 180 or 270") { text -> Int?? in
            // nil refuses the text; .some(nil) is auto: the panel's orientation whatever the config says.
            if text == "auto" { return .some(nil) }
            return parseRotation(text).map(Optional.some)
        }
        o.calibration = try args.value("--calibration", expected: "six numbers a b c d e f, or none") { text in
            text == "none" ? .identity : CalibrationMatrix(parsing: text)
        }
        o.seat = try args.option("--seat")
        o.seconds = try args.number("--seconds", in: 0.1...86_400)
        try args.finish()
        return o
    }

    /// What the test runs with: the options over the config.
    struct Settings: Equatable {
        var display: DisplayBackends.Choice
        var device: String?
        var connector: String?
        var mode: ModeRequest?
        /// Clockwise degrees; nil follows the panel's orientation.
        var rotation: Int?
        var calibration: CalibrationMatrix
        var seat: String
    }

    static func settings(_ o: Options, config: Config) -> Settings {
        Settings(display: o.display ?? config.displayBackend,
                 device: o.device ?? config.displayDevice, connector: config.connector, mode: config.mode,
                 rotation: o.rotation ?? config.rotation,
                 calibration: o.calibration ?? config.calibration.flatMap { CalibrationMatrix($0.map(Float.init)) } ?? .identity,
                 seat: o.seat ?? config.seat)
    }

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        guard let options = try parse(raw) else { printLine(help); return 0 }
        let (config, configPath) = try Config.loadForCommand("touch-test", path: options.configPath)
        return run(settings(options, config: config), configPath: configPath, seconds: options.seconds)
    }

    static func run(_ settings: Settings, configPath: String?, seconds: Double?) -> Int32 {
        let display: any Display
        do {
            display = try DisplayBackends.open(settings.display, device: settings.device, connector: settings.connector,
                                               mode: settings.mode, log: { Log.notice("display: \($0)") })
        } catch {
            Log.error("touch-test: \(error)")
            return 1
        }
        // From here on every way out gives the console its screen back.
        defer { display.shutdown() }
        let fonts: FontSet
        let loop: EventLoop
        let input: InputDevices
        do {
            fonts = try FontSet.load()
            loop = try EventLoop()
            input = try InputDevices(seat: settings.seat, mapping: TouchMapping(panelWidth: 0, panelHeight: 0),
                                     calibration: settings.calibration.isIdentity ? nil : settings.calibration,
                                     log: { Log.notice($0) })
        } catch {
            Log.error("touch-test: \(error)")
            return 1
        }
        let target = configPath ?? Config.defaultPath
        func report(_ outcome: CornerCalibration.Outcome) {
            switch outcome {
            case .next: break
            case .done(let result):
                printLine(result.line)
                Log.notice("touch-test: worst tap \(format(result.worstPixels, 1)) px from its target after the fit; "
                    + "paste the line into the [input] section of \(target) and restart tickerboard")
            case .failed(let message): Log.warning("touch-test: \(message)")
            }
        }

        // The screen follows the display: built once it has a mode, again when the mode or the
        // panel's orientation changes (an output plugged in later).
        var screen: TouchTestScreen?
        var physical: PixelBuffer?
        var turns = 0
        var dirty = true
        func layout() {
            guard display.width > 0, display.height > 0 else { return }
            let newTurns = settings.rotation.map { $0 / 90 } ?? display.panelQuarterTurns
            let mapping = TouchMapping(panelWidth: display.width, panelHeight: display.height, quarterTurns: newTurns)
            guard screen == nil || mapping != input.mapping else { return }
            turns = newTurns
            input.mapping = mapping
            screen = TouchTestScreen(calibration: CornerCalibration(mapping: mapping, current: settings.calibration),
                                     fonts: fonts, devices: input.devices.map(\.description), report: report)
            physical = turns == 0 ? nil : PixelBuffer(width: display.width, height: display.height)
            dirty = true
        }
        func present() {
            guard dirty, display.canPresent, let screen else { return }
            dirty = false
            let frame = screen.render()
            if var p = physical {
                physical = nil
                frame.rotate(quarterTurns: turns, into: &p)
                try? display.present(p, damage: p.bounds)
                physical = p
            } else {
                try? display.present(frame, damage: frame.bounds)
            }
        }
        func handle(_ events: [InputEvent]) {
            for event in events { if screen?.handle(event) == true { dirty = true } }
        }
        do {
            layout()
            if let fd = display.pollDescriptor {
                try loop.watch(fd) { _ in
                    _ = display.handleReadable()
                    layout()
                    present()
                }
            }
            try loop.watch(input.pollDescriptor) { _ in
                handle(input.dispatch())
                present()
            }
            let signals = try SignalFD(signals: [SIGTERM, SIGINT])
            try loop.watch(signals.descriptor.rawValue) { _ in loop.stop() }
            if let seconds { try loop.addTimer(after: .milliseconds(Int64(seconds * 1000))) { loop.stop() } }
            // Once a second: the report rate text changes.
            try loop.addTimer(after: .seconds(1), repeating: .seconds(1)) {
                if screen?.tick() == true { dirty = true; present() }
            }
            handle(input.dispatch())
            present()
            try loop.run()
            withExtendedLifetime(signals) {}
        } catch {
            Log.error("touch-test: \(error)")
            return 1
        }
        return 0
    }
}

/// The picture of the touch test: corner targets (the next one to tap highlighted), contacts,
/// rates and the calibration round's result. Pure apart from the text cache; a finished round is
/// handed to `report`.
final class TouchTestScreen {
    let canvas: Canvas
    private let renderer = TextRenderer()
    private let font: Font
    private(set) var calibration: CornerCalibration
    private let report: (CornerCalibration.Outcome) -> Void
    private var contacts: [Int: (x: Double, y: Double)] = [:]
    /// Set while more than one finger is down, until all are lifted: those lifts are not taps.
    private var multiTouch = false
    private var eventsThisSecond = 0
    private(set) var reportRate = 0
    private var devices: [String]
    /// What the last round said (the line to paste, or what went wrong).
    private(set) var status: [String] = []

    init(calibration: CornerCalibration, fonts: FontSet, devices: [String] = [],
         report: @escaping (CornerCalibration.Outcome) -> Void = { _ in }) {
        let width = calibration.mapping.logicalWidth, height = calibration.mapping.logicalHeight
        canvas = Canvas(width: width, height: height)
        font = Font(face: fonts.regular, clampingPixelSize: 26 * max(0.5, Double(min(width, height)) / 1080))
        self.calibration = calibration
        self.devices = devices
        self.report = report
    }

    /// Returns true when the picture changed.
    func handle(_ event: InputEvent) -> Bool {
        switch event {
        case .touchDown(let slot, let x, let y, _), .touchMotion(let slot, let x, let y, _):
            contacts[slot] = (x, y)
            if contacts.keys.filter({ $0 >= 0 }).count > 1 { multiTouch = true }
            eventsThisSecond += 1
            return true
        case .touchUp(let slot, _):
            if let p = contacts.removeValue(forKey: slot), !multiTouch { tapped(p) }
            if !contacts.keys.contains(where: { $0 >= 0 }) { multiTouch = false }
            return true
        case .touchCancel(let slot, _):
            contacts[slot] = nil
            if !contacts.keys.contains(where: { $0 >= 0 }) { multiTouch = false }
            return true
        case .touchFrame:
            return false
        case .pointerMotion(let x, let y, _):
            if contacts[-1] != nil { contacts[-1] = (x, y); return true }
            return false
        case .pointerButton(_, let pressed, let x, let y, _):
            contacts[-1] = pressed ? (x, y) : nil
            return true
        case .deviceAdded(let info):
            if !devices.contains(info.description) { devices.append(info.description) }
            return true
        case .deviceRemoved(let info):
            devices.removeAll { $0 == info.description }
            return true
        case .key:
            return false
        }
    }

    private func tapped(_ p: (x: Double, y: Double)) {
        let outcome = calibration.tap(x: p.x, y: p.y)
        switch outcome {
        case .next: break
        case .done(let result):
            status = [result.line, "worst tap \(format(result.worstPixels, 1)) px off: paste the line into [input], restart; or tap again"]
        case .failed(let message): status = [message]
        }
        report(outcome)
    }

    /// Called once a second; true when the rate text changed.
    func tick() -> Bool {
        let changed = reportRate != eventsThisSecond
        reportRate = eventsThisSecond
        eventsThisSecond = 0
        return changed
    }

    func render() -> PixelBuffer {
        let w = Double(canvas.width), h = Double(canvas.height)
        canvas.clip = canvas.buffer.bounds
        canvas.clear(Color(rgb: 0x0D1117))
        for (i, (cx, cy)) in calibration.targets.enumerated() {
            let next = i == calibration.nextTarget
            let color = next ? Color(rgb: 0xF2CC60) : Color(rgb: i < calibration.nextTarget ? 0x00C805 : 0xC9D1D9)
            var cross = Path()
            cross.move(to: Point(cx - 30, cy)); cross.line(to: Point(cx + 30, cy))
            cross.move(to: Point(cx, cy - 30)); cross.line(to: Point(cx, cy + 30))
            canvas.stroke(cross, style: StrokeStyle(width: next ? 3 : 2), paint: .solid(color))
            var ring = Path()
            ring.addCircle(center: Point(cx, cy), radius: 14)
            canvas.stroke(ring, style: StrokeStyle(width: next ? 3 : 2), paint: .solid(color))
        }
        for (slot, p) in contacts.sorted(by: { $0.key < $1.key }) {
            var ring = Path()
            ring.addCircle(center: Point(p.x, p.y), radius: 36)
            canvas.stroke(ring, style: StrokeStyle(width: 4), paint: .solid(Color(rgb: 0x00C805)))
            let label = (slot < 0 ? "mouse" : "slot \(slot)") + "  \(Int(p.x)), \(Int(p.y))"
            renderer.draw(label, font: font, color: Color(rgb: 0xE6EDF3), x: p.x, y: p.y - 48,
                          alignment: .baselineCenter, into: &canvas.buffer, clip: canvas.clip)
        }
        var lines = ["touch test: tap the highlighted target (\(calibration.nextTarget + 1) of \(calibration.targets.count)); Ctrl-C to quit",
                     "\(canvas.width)x\(canvas.height), report rate \(reportRate) events/s"]
        lines += status
        lines += devices
        for (i, line) in lines.enumerated() {
            renderer.draw(line, font: font, color: Color(rgb: 0x8B949E), x: w / 2, y: h / 2 + Double(i) * font.pixelSize * 1.5,
                          alignment: .baselineCenter, into: &canvas.buffer, clip: canvas.clip)
        }
        return canvas.buffer
    }
}
