import Control
import Display
import DisplayModel
import Input
import InputModel
import Kiosk
import KioskCore
import LinuxIO

/// The `tickerboard` command line: one entry point, one subcommand per job.
public enum Tickerboard {
    static let help = """
        tickerboard: a stock-ticker appliance that draws straight to a Linux display

        usage: tickerboard [COMMAND] [OPTIONS]

        commands:
          run            run the kiosk daemon (the default command)
          render         render frames of the chart to PNG
          bench          benchmark the rasterizer on the reference scene (shared/bench/SCENE.md)
          outputs        list DRM cards, connectors and modes (what to put in the config)
          check-config   check a configuration file: FILE:LINE: key: message for each problem
          ctl            talk to the running daemon: show, range, screen on|off, message, screenshot, …
          calendar       list an exchange's trading sessions or holidays (e.g. --exchange XTKS)
          power-plan     when the screen is on, dimmed or off between two dates, and why
          inputs         list the input devices libinput sees on the seat
          display-check  drive the display with a test pattern and report the flip rate
          touch-test     check touch rotation and calibration; four corner taps give the `calibration` line
          input-check    print every input event in display coordinates (for installers)
          help           show this text
          version        print the version (also --version)

        `tickerboard COMMAND --help` explains a command.
        """

    /// Runs the command line `arguments` (without the program name) and returns the exit status:
    /// 0 done, 1 failed at run time, 2 a usage mistake (one line on stderr).
    public static func main(_ arguments: [String]) -> Int32 {
        ProcessResources.ignoreBrokenPipes()
        if arguments.first == "--version" || arguments.first == "version" {
            printLine("tickerboard \(TickerboardVersion.string)")
            return 0
        }
        var args = arguments
        let command = args.first.map { $0.hasPrefix("-") ? "run" : $0 } ?? "run"
        if let first = args.first, !first.hasPrefix("-") { args.removeFirst() }
        if command == "run", args.first == "--help" || args.first == "-h", arguments.first != "run" {
            printLine(help)
            return 0
        }
        do throws(UsageError) {
            switch command {
            case "run": return try RunCommand.run(args)
            case "render": return try RenderCommand.run(args)
            case "bench": return try BenchCommand.run(args)
            case "check-config": return try CheckConfigCommand.run(args)
            case "calendar": return try CalendarCommand.run(args)
            case "ctl": return try CtlCommand.run(args)
            case "power-plan": return try PowerPlanCommand.run(args)
            case "outputs":
                if args.contains("--help") { printLine("usage: tickerboard outputs\n\nLists DRM cards, drivers, connectors and modes, and which card the daemon takes with\n`[display] backend = auto` and no device, and why."); return 0 }
                guard args.isEmpty else { throw UsageError("outputs: unexpected argument \"\(args[0])\"") }
                let report = OutputsReport.make()
                print(report.text, terminator: report.text.hasSuffix("\n") ? "" : "\n")
                return report.exitCode
            case "display-check": return try DisplayCheckCommand.run(args)
            case "input-check": return try InputCheckCommand.run(args)
            case "touch-test": return try TouchTestCommand.run(args)
            case "inputs":
                var a = Arguments(command: "inputs", args)
                if a.wantsHelp() { printLine("usage: tickerboard inputs [--seat SEAT]\n\nLists input devices and their capabilities."); return 0 }
                let seat = try a.option("--seat") ?? "seat0"
                try a.finish()
                print(InputReport.make(seat: seat), terminator: "")
                return 0
            case "help": printLine(help); return 0
            default: throw UsageError("unknown command \"\(command)\" (see tickerboard --help)")
            }
        } catch {
            Log.error("tickerboard \(error.message)")
            return 2
        }
    }
}
