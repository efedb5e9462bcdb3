import Display
import Input
import LinuxIO
import Raster
import Text

#if canImport(Glibc)
import Glibc
#endif

/// `tickerboard touch-test`: a screen for installers checking rotation and calibration. It shows a
/// target in each corner, every contact as a ring labelled with its slot and position, and the
/// touch device's report rate. Runs until SIGTERM/SIGINT (or `--seconds`).
enum TouchTestCommand {
    static let help = """
        usage: tickerboard touch-test [--display auto|kms|fbdev] [--device PATH] [--rotation 0|90|180|270]
                                      [--seat SEAT] [--seconds S]

        Shows corner targets and every touch contact with its slot; touch each corner: the ring must
        land on the target. Exit with Ctrl-C (or after --seconds).
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "touch-test", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        let choiceName = try args.option("--display") ?? "auto"
        let device = try args.option("--device")
        let rotation = try args.integer("--rotation", in: 0...270) ?? 0
        let seat = try args.option("--seat") ?? "seat0"
        let seconds = try args.number("--seconds", in: 0.1...86_400)
        try args.finish()
        guard let choice = DisplayBackends.Choice(rawValue: choiceName) else {
            throw UsageError("touch-test: --display \"\(choiceName)\" is not auto, kms or fbdev")
        }
        guard rotation % 90 == 0 else { throw UsageError("touch-test: --rotation must be 0, 90, 180 or 270") }

        let display: any Display
        let fonts: FontSet
        do {
            display = try DisplayBackends.open(choice, device: device, log: { Log.notice("display: \($0)") })
            fonts = try FontSet.load()
        } catch {
            Log.error("touch-test: \(error)")
            return 1
        }
        defer { display.shutdown() }
        let turns = rotation / 90
        let (w, h) = turns % 2 == 1 ? (display.height, display.width) : (display.width, display.height)
        let screen = TouchTestScreen(width: w, height: h, fonts: fonts)
        let loop: EventLoop
        let input: InputDevices
        do {
            loop = try EventLoop()
            input = try InputDevices(seat: seat, mapping: TouchMapping(panelWidth: display.width, panelHeight: display.height,
                                                                     quarterTurns: turns), log: { Log.notice($0) })
        } catch {
            Log.error("touch-test: \(error)")
            return 1
        }
        var dirty = true
        var physical = turns == 0 ? nil : PixelBuffer(width: display.width, height: display.height)
        func present() {
            guard dirty, display.canPresent else { return }
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
        do {
            if let fd = display.pollDescriptor {
                try loop.watch(fd) { _ in _ = display.handleReadable(); present() }
            }
            try loop.watch(input.pollDescriptor) { _ in
                for event in input.dispatch() { if screen.handle(event) { dirty = true } }
                present()
            }
            let signals = try SignalFD(signals: [SIGTERM, SIGINT])
            try loop.watch(signals.descriptor.rawValue) { _ in loop.stop() }
            if let seconds { try loop.addTimer(after: .milliseconds(Int64(seconds * 1000))) { loop.stop() } }
            // Once a second: the report rate text changes.
            try loop.addTimer(after: .seconds(1), repeating: .seconds(1)) {
                if screen.tick() { dirty = true; present() }
            }
            for event in input.dispatch() { _ = screen.handle(event) }
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

/// The picture of the touch test: corner targets, contacts, rates. Pure apart from the text cache.
final class TouchTestScreen {
    let canvas: Canvas
    private let renderer = TextRenderer()
    private let font: Font
    private var contacts: [Int: (x: Double, y: Double)] = [:]
    private var eventsThisSecond = 0
    private(set) var reportRate = 0
    private var devices: [String] = []

    init(width: Int, height: Int, fonts: FontSet) {
        canvas = Canvas(width: width, height: height)
        font = Font(face: fonts.regular, clampingPixelSize: 26 * max(0.5, Double(min(width, height)) / 1080))
    }

    /// Returns true when the picture changed.
    func handle(_ event: InputEvent) -> Bool {
        switch event {
        case .touchDown(let slot, let x, let y, _), .touchMotion(let slot, let x, let y, _):
            contacts[slot] = (x, y)
            eventsThisSecond += 1
            return true
        case .touchUp(let slot, _), .touchCancel(let slot, _):
            contacts[slot] = nil
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
            devices.append(info.description)
            return true
        case .deviceRemoved(let info):
            devices.removeAll { $0 == info.description }
            return true
        case .key:
            return false
        }
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
        let inset = 40.0
        for (cx, cy) in [(inset, inset), (w - inset, inset), (w - inset, h - inset), (inset, h - inset)] {
            var cross = Path()
            cross.move(to: Point(cx - 30, cy)); cross.line(to: Point(cx + 30, cy))
            cross.move(to: Point(cx, cy - 30)); cross.line(to: Point(cx, cy + 30))
            canvas.stroke(cross, style: StrokeStyle(width: 2), paint: .solid(Color(rgb: 0xC9D1D9)))
            var ring = Path()
            ring.addCircle(center: Point(cx, cy), radius: 14)
            canvas.stroke(ring, style: StrokeStyle(width: 2), paint: .solid(Color(rgb: 0x8B949E)))
        }
        for (slot, p) in contacts.sorted(by: { $0.key < $1.key }) {
            var ring = Path()
            ring.addCircle(center: Point(p.x, p.y), radius: 36)
            canvas.stroke(ring, style: StrokeStyle(width: 4), paint: .solid(Color(rgb: 0x00C805)))
            let label = (slot < 0 ? "mouse" : "slot \(slot)") + "  \(Int(p.x)), \(Int(p.y))"
            renderer.draw(label, font: font, color: Color(rgb: 0xE6EDF3), x: p.x, y: p.y - 48,
                          alignment: .baselineCenter, into: &canvas.buffer, clip: canvas.clip)
        }
        var lines = ["touch test: touch each corner target; Ctrl-C to quit",
                     "\(canvas.width)x\(canvas.height), report rate \(reportRate) events/s"]
        lines += devices
        for (i, line) in lines.enumerated() {
            renderer.draw(line, font: font, color: Color(rgb: 0x8B949E), x: w / 2, y: h / 2 + Double(i) * font.pixelSize * 1.5,
                          alignment: .baselineCenter, into: &canvas.buffer, clip: canvas.clip)
        }
        return canvas.buffer
    }
}
