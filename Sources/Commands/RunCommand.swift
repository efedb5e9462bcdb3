import Chart
import Display
import DisplayModel
import Kiosk
import KioskCore
import LinuxIO
import Text

#if canImport(Glibc)
import Glibc
#endif

/// `tickerboard run`: the daemon.
enum RunCommand {
    static let help = """
        usage: tickerboard run [--config FILE] [--display auto|kms|fbdev|headless] [--preview FILE.png]
                               [--status FILE] [--metrics FILE] [--ready-file PATH] [--size WxH] [--time-scale N]
                               [--control PATH [--control-group NAME]] [--config-dir DIR]

        Runs the kiosk. With a display it takes the screen; with no display device at all it says so,
        writes one preview frame (default /tmp/tickerboard-preview.png) and waits for a display.
          --display headless  the real daemon loop on a simulated 60 Hz display (--size, default
                              1920x1080), with the configured instruments; it keeps running
          --preview FILE.png  headless: rewrite FILE (atomically) whenever a settled frame is shown,
                              its moment on the daemon's clock in the PNG text "tickerboard-time"
                              (what render --config --at takes: where a crawling tape is)
          --status FILE       keep FILE current with what is shown and how the daemon is doing
                              (JSON; default $RUNTIME_DIRECTORY/status.json under systemd)
          --metrics FILE      the same for Prometheus (node_exporter's textfile format; default
                              tickerboard.prom beside the status file, "off" for none)
          --time-scale N      headless: run the daemon's clock N times faster (0.01 to 10000)
          --config-dir DIR    drop-ins read after the config, *.conf in lexical order (default:
                              conf.d beside the config file, /etc/tickerboard/conf.d)
          --control PATH      listen for `tickerboard ctl` on the Unix socket PATH (mode 0660; under
                              systemd a socket it passes is used); --control-group NAME: the
                              group whose members may use it (the daemon must be in it)
          --ready-file PATH   write PATH once the first frame is on screen (for scripts; systemd
                              gets READY=1 through $NOTIFY_SOCKET either way)
        Signals: TERM/INT exit and give the console back, HUP reloads the config and re-reads every
        data file, USR1 logs statistics.
        """

    struct Options {
        var configPath: String?
        var display: DisplayBackends.Choice?
        var preview: String?
        var status: String?
        var metrics: String?
        var readyFile: String?
        var size: ModeRequest?
        var timeScale: Double = 1
        var control: String?
        var controlGroup: String?
        var configDirectory: String?
    }

    static func parse(_ raw: [String]) throws(UsageError) -> Options? {
        var args = Arguments(command: "run", raw)
        if args.wantsHelp() { return nil }
        var o = Options()
        o.configPath = try args.option("--config")
        o.display = try args.value("--display", expected: DisplayBackends.Choice.names(), DisplayBackends.Choice.init(rawValue:))
        o.preview = try args.option("--preview")
        o.status = try args.option("--status")
        o.metrics = try args.option("--metrics")
        o.readyFile = try args.option("--ready-file")
        o.control = try args.option("--control")
        o.controlGroup = try args.option("--control-group")
        if o.controlGroup != nil && o.control == nil { throw UsageError("run: --control-group needs --control PATH") }
        o.configDirectory = try args.option("--config-dir")
        if let size = try args.option("--size") {
            guard let m = ModeRequest(size), m.width <= 16_384, m.height <= 16_384 else {
                throw UsageError("run: --size \"\(size)\" is not WxH like 1280x720")
            }
            o.size = m
        }
        if let scale = try args.option("--time-scale") {
            guard let v = Double(scale), v.isFinite, v >= 0.01, v <= 10_000 else {
                throw UsageError("run: --time-scale \"\(scale)\" is not a number from 0.01 to 10000")
            }
            o.timeScale = v
        }
        try args.finish()
        if o.display?.isPhysical != false {
            if o.timeScale != 1 { throw UsageError("run: --time-scale needs --display headless") }
            if o.size != nil { throw UsageError("run: --size needs --display headless") }
        }
        if let path = o.configPath, let problem = FileSystem.readProblem(path) {
            throw UsageError("run: --config \(path): \(problem.message)")
        }
        return o
    }

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        guard let o = try parse(raw) else { printLine(help); return 0 }

        var config = Config()
        let path = o.configPath ?? (FileSystem.exists(Config.defaultPath) ? Config.defaultPath : nil)
        if let path {
            let (loaded, issues) = Config.load(path: path, dropInDirectory: o.configDirectory)
            // A bad key falls back to its default: the screen must come up whatever the file says.
            for issue in issues { issue.severity == .error ? Log.error("config: \(issue)") : Log.warning("config: \(issue)") }
            config = loaded
        }
        // The command line wins over [display] backend.
        let displayChoice = o.display ?? config.displayBackend
        let fonts: FontSet
        do { fonts = try FontSet.load() } catch { Log.error("run: \(error)"); return 1 }

        if displayChoice == .auto && DisplayBackends.devicePaths().isEmpty {
            let preview = o.preview ?? "/tmp/tickerboard-preview.png"
            let model = ScreenModel(instrument: .sample(), width: 1920, height: 1080, fonts: fonts, range: config.startRange)
            let display = HeadlessDisplay(width: 1920, height: 1080)
            do {
                try display.present(SceneRenderer().render(model, at: 0).buffer, damage: display.screen.bounds)
                try display.capture(to: preview)
            } catch {
                Log.error("run: \(error)")
                return 1
            }
            // On stderr: unbuffered, so the journal has it now, not at exit.
            Log.notice("no display device (/dev/dri/card*, /dev/fb*): preview written to \(preview); waiting for a display")
        } else if displayChoice.isPhysical && o.preview != nil {
            throw UsageError("run: --preview needs --display headless (or no display device)")
        }

        var options = Daemon.Options()
        options.configPath = path
        options.displayChoice = displayChoice
        options.readyFile = o.readyFile
        options.previewFile = displayChoice.isPhysical ? nil : o.preview
        options.statusFile = o.status ?? getenv("RUNTIME_DIRECTORY").map {
            // systemd may list several directories, separated by colons: the first is ours.
            String(cString: $0).split(separator: ":").first.map { String($0) + "/status.json" } ?? ""
        }.flatMap { $0.isEmpty ? nil : $0 }
        if o.metrics != "off" {
            options.metricsFile = o.metrics ?? options.statusFile.map { path in
                (path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")) + "/tickerboard.prom"
            }
        }
        options.alertStateFile = getenv("STATE_DIRECTORY").flatMap {
            String(cString: $0).split(separator: ":").first.map { String($0) + "/alerts.state" }
        }
        options.timeScale = o.timeScale
        options.modeOverride = o.size
        options.controlPath = o.control
        options.controlGroup = o.controlGroup
        options.configDirectory = o.configDirectory
        ProcessResources.returnLargeBlocksToTheKernel()
        let daemon: Daemon
        do {
            daemon = try Daemon(config: config, options: options, fonts: fonts)
        } catch {
            Log.error("run: \(error)")
            return 1
        }
        return daemon.run()
    }
}
