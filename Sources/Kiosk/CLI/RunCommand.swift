import Chart
import Display
import Text

#if canImport(Glibc)
import Glibc
#endif

/// `tickerboard run`: the daemon.
enum RunCommand {
    static let help = """
        usage: tickerboard run [--config FILE] [--display auto|kms|fbdev|headless] [--preview FILE.png]
                               [--ready-file PATH]

        Runs the kiosk. With a display it takes the screen; with no display device at all it says so
        and writes one preview frame of the built-in sample market instead (default
        /tmp/tickerboard-preview.png).
          --ready-file PATH   create PATH once the first frame is on screen (for scripts; systemd
                              gets READY=1 through $NOTIFY_SOCKET either way)
        Signals: TERM/INT exit and give the console back, HUP reloads the config, USR1 logs statistics.
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "run", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        let configPath = try args.option("--config")
        let displayOption = try args.option("--display")
        let previewPath = try args.option("--preview") ?? "/tmp/tickerboard-preview.png"
        let readyFile = try args.option("--ready-file")
        try args.finish()
        if let displayOption, !["auto", "kms", "fbdev", "headless"].contains(displayOption) {
            throw UsageError("run: --display \"\(displayOption)\" is not auto, kms, fbdev or headless")
        }
        if let configPath, access(configPath, R_OK) != 0 {
            throw UsageError("run: --config \(configPath): \(String(cString: strerror(errno)))")
        }

        var config = Config()
        let path = configPath ?? (access(Config.defaultPath, F_OK) == 0 ? Config.defaultPath : nil)
        if let path {
            let (loaded, issues) = Config.load(path: path)
            // A bad key falls back to its default: the screen must come up whatever the file says.
            for issue in issues { issue.severity == .error ? Log.error("config: \(issue)") : Log.warning("config: \(issue)") }
            config = loaded
        }
        // The command line wins over [display] backend.
        let displayChoice = displayOption ?? config.displayBackend
        let fonts: FontSet
        do { fonts = try FontSet.load() } catch { Log.error("run: \(error)"); return 1 }

        let devices = DisplayBackends.devicePaths()
        if displayChoice == "headless" || (devices.isEmpty && displayChoice == "auto") {
            let model = ScreenModel(instrument: .sample(), width: 1920, height: 1080, fonts: fonts,
                                    range: config.startRange)
            let display = HeadlessDisplay(width: 1920, height: 1080)
            display.present(model.render(at: 0).buffer, damage: display.screen.bounds)
            do { try display.capture(to: previewPath) } catch { Log.error("run: \(error)"); return 1 }
            if displayChoice == "headless" {
                printLine("preview written to \(previewPath)")
                return 0
            }
            printLine("no display device (/dev/dri/card*, /dev/fb*): preview written to \(previewPath); waiting for a display")
        }
        let choice = DisplayBackends.Choice(rawValue: displayChoice) ?? .auto
        let daemon: Daemon
        do {
            daemon = try Daemon(config: config, configPath: path, displayChoice: choice, fonts: fonts, readyFile: readyFile)
        } catch {
            Log.error("run: \(error)")
            return 1
        }
        return daemon.run()
    }
}
