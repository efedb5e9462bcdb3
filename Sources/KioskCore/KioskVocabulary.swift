// The core's vocabulary: what the shell tells it (`KioskEvent`, stamped with `KioskTime`), what it
// is told to do (`KioskEffect`, among them a `FramePlan` to present), and what it is set up with
// (`KioskSetup`, `DisplayInfo`). Values only: the decisions are KioskCore's (KioskCore.swift).

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

/// Time as the core sees it.
public struct KioskTime: Sendable, Equatable {
    /// Monotonic seconds: animations, timers, vblanks (never steps).
    public var mono: Double
    /// Unix seconds on the wall clock: the power schedule, staleness, the status file.
    public var wall: Double

    public init(mono: Double, wall: Double) {
        self.mono = mono
        self.wall = wall
    }

    public func advanced(by seconds: Double) -> KioskTime {
        KioskTime(mono: mono + seconds, wall: wall + seconds)
    }
}

/// What the core needs to know of an open display.
public struct DisplayInfo: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var refreshHz: Double
    public var panelQuarterTurns: Int
    /// False while the output is unplugged (KMS waiting for a hotplug).
    public var outputConnected: Bool
    /// How far the display moves the picture itself, copying nothing (0: the shell moves pixels).
    public var scanoutShiftLimit: Int
    /// Clockwise quarter turns the display gives the picture itself (a plane's rotation); a turn
    /// not in it is a rotated copy by the shell.
    public var scanoutQuarterTurns: Set<Int>
    /// A framebuffer taken because no KMS card could show a picture at start: a KMS output that
    /// appears later (`.kmsOutputAppeared`) replaces it.
    public var yieldsToKMS: Bool
    /// The sysfs backlight that carries the screen's level (its name under /sys/class/backlight);
    /// nil: the level is software dimming (the renderer scales the colours).
    public var backlight: String?
    /// Who holds the screen while another program is DRM master ("1234 (labwc)", "" unknown).
    public var screenHolder: String?

    public init(width: Int, height: Int, refreshHz: Double = 60, panelQuarterTurns: Int = 0, outputConnected: Bool = true,
                scanoutShiftLimit: Int = 0, scanoutQuarterTurns: Set<Int> = [0], yieldsToKMS: Bool = false,
                backlight: String? = nil, screenHolder: String? = nil) {
        self.backlight = backlight
        self.screenHolder = screenHolder
        self.yieldsToKMS = yieldsToKMS
        self.scanoutShiftLimit = max(0, scanoutShiftLimit)
        self.scanoutQuarterTurns = scanoutQuarterTurns.union([0])
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
        self.panelQuarterTurns = panelQuarterTurns
        self.outputConnected = outputConnected
    }
}

/// A change of the open display (its flips arrive as `KioskEvent.flipCompleted`, on the core's clock).
public enum DisplayChange: Sendable, Equatable {
    /// The output was unplugged: nothing is presented until it returns.
    case connectorLost
    /// The output is back, possibly with another mode.
    case connectorReturned
    /// Another process took the display (DRM master lost).
    case masterLost
    /// The display is ours again.
    case masterRegained
    /// The program that held the display let go, but ours must be opened again to take it.
    case masterFree
}

/// Everything a configuration means once the shell has read what it names from disk (time zones).
public struct KioskSetup: Sendable {
    public var config: Config
    /// The exchange time zone of each instrument that could be resolved (by config id).
    public var zones: [String: ExchangeTimeZone]
    /// The system's local zone, in which the power schedule is read.
    public var localZone: ExchangeTimeZone
    /// Problems found while resolving (an unknown time zone), with their config line.
    public var problems: [KioskProblem]
    /// The config file, for messages ("" for the built-in default).
    public var configFile: String
    /// What each `[alert]` remembers (fired, re-armed), as the shell kept it across a restart.
    public var alertStates: [String: AlertState] = [:]

    public init(config: Config, zones: [String: ExchangeTimeZone], localZone: ExchangeTimeZone,
                problems: [KioskProblem] = [], configFile: String = "") {
        self.config = config
        self.zones = zones
        self.localZone = localZone
        self.problems = problems
        self.configFile = configFile
    }
}

/// Something that happened, as the shell saw it.
public enum KioskEvent: Sendable {
    /// First event: the loop is set up.
    case start
    /// `nextDeadline` passed.
    case timer
    /// A display was opened (possibly with its output not connected yet).
    case displayOpened(DisplayInfo)
    /// No display could be opened; `message` is logged when given.
    case displayUnavailable(message: String?)
    /// A DRM or framebuffer device appeared or changed while none is open.
    case hotplug
    /// A KMS output is connected now (`reason`: which card and why) while the open display
    /// ``DisplayInfo/yieldsToKMS``.
    case kmsOutputAppeared(reason: String)
    /// The open display reported a change; `info` is its state after it.
    case display(DisplayChange, DisplayInfo)
    /// The presented frame is on screen since `vblank` (core monotonic seconds).
    case flipCompleted(vblank: Double, sequence: UInt64)
    /// The shell carried out a `.present`: what it cost (the statistics and the status file count it).
    case framePresented(FrameReport)
    /// `present` failed; no flip is in flight.
    case presentFailed(String)
    /// The outcome of `.setPowered(false)`: without DPMS the core shows a black frame instead.
    case screenOffApplied(dpms: Bool)
    /// The kernel wants our VT switched away / gives it back (VT_PROCESS).
    case vtRelease
    case vtAcquire
    case gesture(Gesture, inputMicros: UInt64?)
    case key(KeyCommand)
    /// A key or button with no command of its own (a PIR sensor through gpio-keys, a doorbell):
    /// someone is there. It wakes the screen like a touch and restarts the idle countdown, but does
    /// not hold the cycle (a sensor that fires whenever someone walks by must not freeze it).
    case presence
    /// Whether a touchscreen is attached now (the shell tells when the answer changes): a banner
    /// then sits above the range selector, which a finger must still reach (issue 52 item 8).
    case touchScreen(present: Bool)
    /// The ambient-light sensor's reading in lux (`[power] light-sensor`); nil: it cannot be read.
    case ambientLight(lux: Double?)
    /// What the HDMI-CEC adapter said (claimed, gone, the TV's power, a transmit's outcome).
    case cec(CECNews)
    /// A data file yielded a good series (at start, on change, on reload).
    case series(instrumentID: String, slot: Slot, series: PriceSeries)
    /// The fetcher's status file of an instrument changed (nil: none, or not readable).
    case fetchStatus(instrumentID: String, FetchStatus?)
    /// The complete current set of data problems (path -> message), after each look at the files.
    case dataProblems([String: String])
    /// SIGHUP with a config file: the shell is about to read it (then `.configure` or `.reloadRejected`).
    case reloadRequested
    /// A configuration to run with (at start, or a reload that parsed without errors).
    case configure(KioskSetup)
    /// A reload whose file has errors: the running configuration stays.
    case reloadRejected(summary: String, problems: [KioskProblem])
    /// SIGUSR1.
    case statisticsRequested(String)
    /// Put this on screen now and hold it there (`render --config`; a remote `show` later).
    case show(ShowRequest)
    /// Someone set the wall clock (an NTP step, a board learning the date at boot): everything
    /// the wall clock decides (screen hours, stale, the market note) is decided again now.
    case clockStepped
    /// A request from the control socket (`id` names the connection's answer).
    case control(id: UInt64, ControlCommand)
    /// SIGTERM / SIGINT.
    case terminate
}

/// What a frame shows: the shell paints it with its renderer, reading nothing else of the core.
public enum FrameScene: Equatable {
    /// A black frame (screen off without DPMS).
    case black
    case chart(ScreenModel)
    case overview(WatchlistScene)

    /// Equal when the frames show the same kind of picture. Plans are compared only as effects
    /// (the tests' `KioskEffect`s); a core holds one chart model and one overview at a time, so
    /// the case names the picture, and what it shows is the model's, which no plan copies. No
    /// object identity, so the core's values compare as values.
    public static func == (a: FrameScene, b: FrameScene) -> Bool {
        switch (a, b) {
        case (.black, .black), (.chart, .chart), (.overview, .overview): true
        case (.black, _), (.chart, _), (.overview, _): false
        }
    }
}

/// The ticker tape of a frame (`[tape]`): where it goes and what it says. The shell's tape renderer
/// draws it at the frame's time; `revision` changes with the words (a changed price then flashes).
public struct FrameTape: Equatable {
    public var position: TapePosition
    public var speed: Double
    public var palette: ChartPalette
    public var items: [TapeItem]
    public var revision: Int

    public init(position: TapePosition, speed: Double, palette: ChartPalette, items: [TapeItem], revision: Int) {
        self.position = position
        self.speed = speed
        self.palette = palette
        self.items = items
        self.revision = revision
    }
}

/// An instrument, range and scene to show at once, the cycle held while it is shown. Missing
/// parts keep what is shown (the instrument) or start where the cycle would (the first range).
public struct ShowRequest: Sendable, Equatable {
    public var instrumentID: String?
    public var range: ChartRange?
    /// The chart, bars, the draw-in or the watchlist. The tape alone is an output's (its config),
    /// the portfolio an instrument (`KioskCore.portfolioID`): as a request's scene they show the chart.
    public var scene: SceneKind

    public init(instrumentID: String? = nil, range: ChartRange? = nil, scene: SceneKind = .chart) {
        self.instrumentID = instrumentID
        self.range = range
        self.scene = scene
    }
}

/// How the next frame is to be made.
public struct FramePlan: Equatable {
    /// What to paint.
    public var scene: FrameScene
    /// The colour of the margins a burn-in shift uncovers (the palette's background).
    public var background: Color
    /// Animation time of the frame: the vblank it will be shown at.
    public var time: Double
    /// Copy the whole picture, not only the damage (after a black frame, a shift, a modeset).
    public var fullCopy: Bool
    /// Burn-in shift of the whole picture.
    public var offset: BurnInShift.Offset
    /// The display moves the scanout by `offset` (no pixel is moved); otherwise the shell shifts
    /// the picture itself.
    public var shiftByScanout = false
    /// Paint the chart for `time`; false when only the shift changed (a burn-in step of a still
    /// picture): what was painted last is shown again, moved.
    public var redraw = true
    /// Clockwise quarter turns from the chart's frame to the panel.
    public var quarterTurns: Int
    /// A black frame (screen off without DPMS) instead of the chart.
    public var black: Bool { scene == .black }
    /// Nothing moves after this frame: a still picture (previews are written from these).
    public var settled: Bool
    /// A message over the picture (`ctl message`), nil for none.
    public var banner: String?
    /// On a touch screen the banner takes the band above the range selector, not the selector.
    public var bannerAboveSelector = false
    /// The ticker tape, nil for none: with `full` the tape alone is the picture, with `bottom` or
    /// `top` the scene is laid out in what the band leaves (`TapeLayout.contentArea`) and placed there.
    /// The tape moves every frame; `settled` is about the scene and a price lit on the tape.
    public var tape: FrameTape?
    /// The screen's level, 0...1: software dimming draws the frame at it, a backlight is set to it.
    public var brightness = 1.0
}

/// What presenting one frame cost, as the shell measured it.
public struct FrameReport: Sendable, Equatable {
    public var renderNanos: UInt64
    public var copyNanos: UInt64
    /// Bytes written towards scanout, and the size of a whole frame.
    public var copiedBytes: Int
    public var frameBytes: Int

    public init(renderNanos: UInt64 = 0, copyNanos: UInt64 = 0, copiedBytes: Int = 0, frameBytes: Int = 0) {
        self.renderNanos = renderNanos
        self.copyNanos = copyNanos
        self.copiedBytes = copiedBytes
        self.frameBytes = frameBytes
    }
}

/// Something the shell must do.
public enum KioskEffect: Equatable {
    case present(FramePlan)
    /// DPMS on or off; the shell answers an off with `.screenOffApplied`.
    case setPowered(Bool)
    /// Ready to serve (at start: with what is shown, e.g. "no display; waiting for one"; again
    /// after each reload, taken or refused, without a status).
    case ready(status: String?)
    /// The service is alive (systemd's watchdog).
    case watchdogPing
    /// The configuration is being read again (systemd shows the unit as reloading until `.ready`).
    case reloading
    /// The service is stopping; `statistics` is the frame statistics' summary line.
    case stopping(statistics: String)
    case log(Log.Priority, String)
    /// Try to open a display now (start, after a hotplug).
    case openDisplay
    /// Close the display and open it again (its `[display]` settings changed).
    case reopenDisplay
    /// Start or stop watching for DRM/framebuffer uevents.
    case watchHotplug(Bool)
    /// Close and reopen the input devices (its `[input]` settings changed, or first start).
    case openInput
    /// Give the display up for another VT (then allow the switch) / take it back (acknowledged).
    case releaseDisplay
    case acquireDisplay
    /// The model was rebuilt: touch mapping and gestures follow a chart of `width` x `height`, the
    /// panel turned by `quarterTurns` (the same turns the frames carry).
    case layoutChanged(quarterTurns: Int, width: Int, height: Int)
    /// Write the status file now with this content (the shell adds what only it can measure),
    /// the metrics beside it and the alerts' states when they changed.
    case writeStatus(StatusWrite)
    /// Leave the loop with this status.
    case exit(Int32)
    /// The answer to control request `id`.
    case controlReply(id: UInt64, ControlReply)
    /// Answer control request `id` with this status as one line of JSON (the shell adds what it measures).
    case controlStatus(id: UInt64, KioskStatus)
    /// Write the picture on the glass as PNG to the descriptor request `id` passed, and answer it.
    case screenshot(id: UInt64)
    /// Re-read the configuration as SIGHUP does, and answer request `id` with the outcome.
    case reloadConfig(id: UInt64)
    /// Tell the TV over HDMI-CEC (standby, wake, …); the outcome comes back as `.cec(.sent/.failed)`.
    case cec(CECRequest)
}

extension KioskEffect {
    /// The sd_notify text of the effects systemd hears about (nil for the others): the daemon
    /// sends it, the core's test driver records it.
    package var systemdMessage: String? {
        switch self {
        case .ready(let status?): "READY=1\nSTATUS=\(status)"
        case .ready(nil): "READY=1"
        case .watchdogPing: "WATCHDOG=1"
        case .reloading: "RELOADING=1"
        case .stopping: "STOPPING=1"
        default: nil
        }
    }
}

/// What the shell writes at a status write: the status file's content, what the metrics file says
/// of each instrument, and the alerts' states it keeps across restarts. All of it in the effect,
/// so that the shell reads nothing of the core to write them.
public struct StatusWrite: Sendable, Equatable {
    public var status: KioskStatus
    public var instruments: [InstrumentHealth]
    public var alertStates: [String: AlertState]

    public init(status: KioskStatus, instruments: [InstrumentHealth] = [], alertStates: [String: AlertState] = [:]) {
        self.status = status
        self.instruments = instruments
        self.alertStates = alertStates
    }
}

// The chart's drawing modes by the vocabulary's names: the status file, `ctl` and `render` say
// these, Chart knows only how to draw them.
extension SceneKind {
    public init(_ scene: ScreenModel.Scene) {
        switch scene {
        case .line: self = .chart
        case .bars: self = .bars
        case .drawIn: self = .draw
        }
    }
}

extension ScreenModel.Scene {
    /// The drawing mode of a chart scene; nil for the scenes that are no chart's.
    public init?(_ kind: SceneKind) {
        switch kind {
        case .chart: self = .line
        case .bars: self = .bars
        case .draw: self = .drawIn
        case .watchlist, .tape, .portfolio: return nil
        }
    }
}
