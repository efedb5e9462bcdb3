@testable import Commands
import Display
import DisplayModel
import Input
import InputModel
import StatusModel
@testable import Kiosk
@testable import KioskCore
import Testing

/// Each command parses its arguments into a value before it touches a device: these tests check
/// the values and that mistakes are refused with one line (the command line turns them into exit 2).
@Suite("Command arguments")
struct CommandArgumentsTests {
    private func usageError(_ body: () throws(UsageError) -> Void) -> String? {
        do { try body(); return nil } catch { return error.message }
    }

    @Test("render --scene: each form's scenes, the chart's old name line, and messages that list what the form takes")
    func renderScenes() throws {
        #expect(try RenderCommand.sceneKind(nil, among: RenderCommand.scenes) == .chart)
        #expect(try RenderCommand.sceneKind("line", among: RenderCommand.scenes) == .chart)
        #expect(try RenderCommand.sceneKind("Watchlist", among: RenderCommand.scenes) == .watchlist)
        #expect(try RenderCommand.sceneKind("tape", among: RenderCommand.configScenes) == .tape)
        #expect(usageError { () throws(UsageError) in _ = try RenderCommand.sceneKind("tape", among: RenderCommand.scenes) }
                == "render: --scene \"tape\" is not chart, bars, draw or watchlist")
        #expect(usageError { () throws(UsageError) in _ = try RenderCommand.sceneKind("ticker", among: RenderCommand.configScenes) }
                == "render: --scene \"ticker\" is not chart, bars, draw, watchlist, tape or portfolio")
        #expect(RenderCommand.help.contains("[--scene chart|bars|draw|watchlist]"))
    }

    @Test("Arguments: = and space forms, flags, repeatable options in order, leftovers refused")
    func arguments() throws {
        var args = Arguments(command: "x", ["--device", "/dev/a", "--quiet", "--device=/dev/b", "--seat", "seat1", "--device", "/dev/c"])
        #expect(try args.repeatable("--device") == ["/dev/a", "/dev/b", "/dev/c"])
        let quiet = args.flag("--quiet"), quietAgain = args.flag("--quiet")
        #expect(quiet && !quietAgain)
        #expect(try args.option("--seat") == "seat1")
        #expect(try args.option("--seat") == nil)
        try args.finish()

        var converted = Arguments(command: "x", ["--rotation", "90", "--backend=vga"])
        #expect(try converted.value("--rotation", expected: "0, 90, 180 or 270", parseRotation) == 90)
        #expect(try converted.value("--mode", expected: "a mode", ModeRequest.init) == nil)
        #expect(usageError { () throws(UsageError) in _ = try converted.value("--backend", expected: "kms or fbdev", { $0 == "kms" ? 1 : nil }) }
                == "x: --backend \"vga\" is not kms or fbdev")

        var none = Arguments(command: "x", [])
        #expect(try none.repeatable("--device") == [])

        let leftover = Arguments(command: "x", ["--frobnicate"])
        #expect(usageError { () throws(UsageError) in try leftover.finish() } == "x: unknown option \"--frobnicate\" (see tickerboard x --help)")
        let positional = Arguments(command: "x", ["stray"])
        #expect(usageError { () throws(UsageError) in try positional.finish() }?.contains("unexpected argument \"stray\"") == true)
    }

    @Test("Arguments: a missing value and a single option given twice are mistakes")
    func argumentMistakes() {
        var missing = Arguments(command: "x", ["--device"])
        #expect(usageError { () throws(UsageError) in _ = try missing.repeatable("--device") } == "x: --device needs a value")
        var flagAsValue = Arguments(command: "x", ["--seat", "--quiet"])
        #expect(usageError { () throws(UsageError) in _ = try flagAsValue.option("--seat") } == "x: --seat needs a value")
        var twice = Arguments(command: "x", ["--seat", "a", "--seat=b"])
        #expect(usageError { () throws(UsageError) in _ = try twice.option("--seat") } == "x: --seat is given more than once")
    }

    @Test("no arguments give the defaults; --help and -h give no options to run with")
    func defaultsAndHelp() throws {
        #expect(try DisplayCheckCommand.parse([]) == DisplayCheckCommand.Options())
        #expect(try InputCheckCommand.parse([]) == InputCheckCommand.Options())
        #expect(try TouchTestCommand.parse([]) == TouchTestCommand.Options())
        for help in ["--help", "-h"] {
            #expect(try DisplayCheckCommand.parse(["--frames", "3", help]) == nil)
            #expect(try InputCheckCommand.parse([help]) == nil)
            #expect(try TouchTestCommand.parse([help, "--seconds", "2"]) == nil)
        }
    }

    @Test("display-check: every option")
    func displayCheck() throws {
        let o = try #require(try DisplayCheckCommand.parse(
            ["--device", "/dev/dri/card1", "--frames", "60", "--mode", "800x600@60", "--ready-file", "/tmp/r",
             "--timer-pacing", "--idle-seconds", "1.5", "--legacy", "--wait-for-output", "--connector", "Virtual-2"]))
        #expect(o.device == "/dev/dri/card1" && o.backend == .kms && o.frames == 60)
        #expect(o.mode == ModeRequest(width: 800, height: 600, refreshHz: 60) && o.readyFile == "/tmp/r")
        #expect(o.timerPacing && o.legacy && o.waitForOutput && o.idleSeconds == 1.5 && o.connector == "Virtual-2")
        #expect(usageError { () throws(UsageError) in _ = try DisplayCheckCommand.parse(["--backend", "fbdev", "--connector", "HDMI-A-1"]) }
                == "display-check: --connector goes with --backend kms, not fbdev")
        let fb = try #require(try DisplayCheckCommand.parse(["--backend", "fbdev", "--device", "/dev/fb0", "--frames", "180"]))
        #expect(fb.backend == .fbdev && fb.device == "/dev/fb0" && fb.frames == 180)
    }

    @Test("input-check: every option, --device repeated")
    func inputCheck() throws {
        let o = try #require(try InputCheckCommand.parse(
            ["--seconds", "90", "--size", "800x480", "--rotation", "90", "--seat", "seat1",
             "--device", "/dev/input/event3", "--device", "/dev/input/event5", "--calibration", "1 0 0 0 -1 1",
             "--ready-file", "/tmp/r", "--quiet"]))
        #expect(o.seconds == 90 && o.width == 800 && o.height == 480 && o.rotation == 90 && o.seat == "seat1")
        #expect(o.devices == ["/dev/input/event3", "/dev/input/event5"])
        #expect(o.calibration == CalibrationMatrix(a: 1, b: 0, c: 0, d: 0, e: -1, f: 1))
        #expect(o.readyFile == "/tmp/r" && o.quiet && !o.report)
        #expect(try InputCheckCommand.parse(["--report"])?.report == true)
    }

    @Test("touch-test: options override the config; rotation auto follows the panel")
    func touchTest() throws {
        var config = Config()
        config.displayBackend = .fbdev
        config.displayDevice = "/dev/fb1"
        config.connector = "HDMI-A-1"
        config.mode = ModeRequest(width: 800, height: 480)
        config.rotation = 270
        config.calibration = [0, 1, 0, 1, 0, 0]
        config.seat = "seat9"
        let fromConfig = TouchTestCommand.settings(try #require(try TouchTestCommand.parse([])), config: config)
        #expect(fromConfig == .init(display: .fbdev, device: "/dev/fb1", connector: "HDMI-A-1", mode: ModeRequest(width: 800, height: 480),
                                    rotation: 270,
                                    calibration: CalibrationMatrix(a: 0, b: 1, c: 0, d: 1, e: 0, f: 0), seat: "seat9"))
        let o = try #require(try TouchTestCommand.parse(["--config", "/tmp/t.conf", "--display", "kms", "--device", "/dev/dri/card1",
                                                         "--rotation", "auto", "--calibration", "none", "--seat", "seat0", "--seconds", "5"]))
        #expect(o.configPath == "/tmp/t.conf" && o.seconds == 5)
        let overridden = TouchTestCommand.settings(o, config: config)
        #expect(overridden == .init(display: .kms, device: "/dev/dri/card1", connector: "HDMI-A-1", mode: ModeRequest(width: 800, height: 480),
                                    rotation: nil, calibration: .identity, seat: "seat0"))
        let ninety = TouchTestCommand.settings(try #require(try TouchTestCommand.parse(["--rotation", "90"])), config: config)
        #expect(ninety.rotation == 90)
        // The shipped defaults: auto display, the panel's orientation, no calibration.
        #expect(TouchTestCommand.settings(TouchTestCommand.Options(), config: Config())
                == .init(display: .auto, device: nil, connector: nil, mode: nil, rotation: nil, calibration: .identity, seat: "seat0"))
    }

    private static func parseError(_ command: String, _ arguments: [String]) -> String? {
        do throws(UsageError) {
            switch command {
            case "display-check": _ = try DisplayCheckCommand.parse(arguments)
            case "input-check": _ = try InputCheckCommand.parse(arguments)
            default: _ = try TouchTestCommand.parse(arguments)
            }
            return nil
        } catch {
            return error.message
        }
    }

    @Test("bad values and unknown flags are refused in one line that names them", arguments: [
        ("display-check", ["--frames", "0"], "--frames"), ("display-check", ["--frames", "many"], "--frames"),
        ("display-check", ["--backend", "vga"], "--backend"), ("display-check", ["--mode", "big"], "--mode"),
        ("display-check", ["--idle-seconds", "-1"], "--idle-seconds"), ("display-check", ["--fast"], "--fast"),
        ("display-check", ["--backend", "fbdev", "--legacy"], "--legacy"), ("display-check", ["--device"], "--device"),
        ("display-check", ["extra"], "extra"),
        ("input-check", ["--seconds", "0"], "--seconds"), ("input-check", ["--size", "1024"], "--size"),
        ("input-check", ["--rotation", "45"], "--rotation"), ("input-check", ["--rotation", "auto"], "--rotation"),
        ("input-check", ["--calibration", "1 0 0"], "--calibration"), ("input-check", ["--loud"], "--loud"),
        ("input-check", ["--seat", "a", "--seat", "b"], "--seat"),
        ("touch-test", ["--display", "headless"], "--display"), ("touch-test", ["--rotation", "45"], "--rotation"),
        ("touch-test", ["--calibration", "yes"], "--calibration"), ("touch-test", ["--seconds", "0"], "--seconds"),
        ("touch-test", ["--frames", "3"], "--frames"),
    ])
    func mistakes(command: String, arguments: [String], names: String) {
        let message = Self.parseError(command, arguments)
        #expect(message?.hasPrefix("\(command): ") == true && message?.contains(names) == true, "\(message ?? "accepted")")
        #expect(message?.contains("\n") == false)
    }

    @Test("usage mistakes exit 2 before any device is opened; help exits 0", arguments: [
        ["display-check", "--frames", "0"], ["display-check", "--bogus"], ["input-check", "--rotation", "45"],
        ["input-check", "--device"], ["touch-test", "--rotation", "45"], ["touch-test", "--config", "/nonexistent/t.conf"],
    ])
    func exitStatus(arguments: [String]) {
        #expect(Tickerboard.main(arguments) == 2)
    }

    @Test("help of every command that has options", arguments: ["display-check", "input-check", "touch-test"])
    func help(command: String) {
        #expect(Tickerboard.main([command, "--help"]) == 0)
    }
}
