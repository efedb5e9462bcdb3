import Chart
import Control
import Display
import DisplayModel
import Feed
import Kiosk
import KioskCore
import LinuxIO
import Raster
import StatusModel
import Text

#if canImport(Glibc)
import Glibc
#endif

/// `tickerboard render`: frames of the line chart as PNG, for previews, docs and tests.
enum RenderCommand {
    static let help = """
        usage: tickerboard render [--data FILE.csv]... [--time-zone ZONE] [--range 1D|5D|1M|6M|YTD|1Y|5Y|MAX]
                                  [--size WxH] [--palette standard|color-blind] [--scene \(usage(scenes))]
                                  [--currency CODE] [--locale LOCALE] [--colors green-up|red-up]
                                  [--at SECONDS] [--scrub X] [--exchange MIC] [--now TIME]
                                  [--baseline-1d previous-close|first] [--extended-hours show|dim|hide]
                                  [--values] --output FILE.png
               tickerboard render ... --transition FROM:TO [--fps N] [--duration S] --output-dir DIR
               tickerboard render --config FILE [--instrument ID] [--scene \(usage(scenes))] [--range R]
                                  [--now TIME] [--size WxH] [--scrub X] [--brightness N] [--message TEXT]
                                  [--at SECONDS] [--output-section NAME] [--values] [--output FILE.png]
               tickerboard render --config FILE --scene tape [--at SECONDS] [--now TIME] [--size WxH] [--output FILE.png]
               tickerboard render --config FILE --scene portfolio [--range R] [--now TIME] [--size WxH]
                                  [--scrub X] [--brightness N] [--message TEXT] [--at SECONDS] [--values] [--output FILE.png]

        Renders one frame of the line chart (default: the built-in sample market, range 1M, 1920x1080),
        or with --transition every frame of the morph from one range to another as DIR/frame-0000.png, ...
          --data FILE.csv     Yahoo-layout daily or intraday prices (Date or Datetime, Open, High, Low, Close, ...);
                              repeat it for --scene watchlist, one tile per file (up to 12)
          --time-zone ZONE    the exchange's IANA time zone for calendar ranges (default America/New_York)
          --adjusted          use Adj Close instead of Close
          --currency CODE     the prices' ISO 4217 currency (default USD; GBp, ZAc, ILA: quoted in pence or cents)
          --locale LOCALE     separators, grouping, symbol position and the screen's words, as [chart] locale (default en-US)
          --colors TREND      green-up or red-up (default: the locale's, as [chart] colors)
          --scene SCENE       chart (default; line is its old name), bars (monthly change, staggered growth), draw (the
                              line drawing itself in), watchlist (a tile per --data file: price, change and a small line
                              of --range)
          --at SECONDS        time into the scene's animation (default: the end, when everything has settled)
          --scrub X           a finger at pixel x: the indicator snaps to the nearest point
          --time-axis AXIS    trading (default: nights and weekends collapsed) or calendar
          --exchange MIC      the exchange calendar (default: the one of --time-zone): 1D spans its session
          --now TIME          the moment for the market status, 2026-11-27T11:30 in exchange time or Unix
                              seconds (default: the newest data point); with it or --exchange the header
                              shows the status ("Closed · opens Mon 09:30 · as of 16:00 EST"), and each
                              watchlist tile its market mark
          --baseline-1d KIND  previous-close (default) or first
          --extended-hours M  show, dim (default) or hide pre- and post-market bars
          --values            print what the frame says as key=value lines (price, change, baseline, ...),
                              the same numbers as the daemon's status file; --output is then optional
          --brightness N      percent (0 to 100, default 100): the frame as software dimming draws it, every
                              colour scaled to N % of its linear-light intensity (with --config too)

        With --config, the picture the daemon shows for that config at --now (default: now), pixel for
        pixel: its instruments' names, currencies, zones, calendars and data files, its ranges and look,
        the fetcher's status files, the size from [display] mode (or --size). --instrument picks one by
        its [instrument ID] (default: the first), --range one of its ranges (default: the first it can
        draw), --scene what the screen shows; --values prints the status file's picture keys. A range the
        instrument cannot draw is said on stderr and the one the daemon would show instead is drawn.
        Alerts that have fired show their banner, [power] schedule its level; --message TEXT is the
        banner `ctl message TEXT` puts up, --brightness N the level `ctl brightness N` holds.
        --output-section NAME draws the screen of that [output] section (first, second or a connector
        name as the section names it) as the daemon drives it: its scene, turn and tape band (default:
        the first section's).

        --scene tape: the ticker tape where [tape] position puts it (off: the tape alone, full screen),
        --at SECONDS into its crawl (default 0): the moment on the daemon's monotonic clock, which a
        preview of `run --preview` names in its PNG text "tickerboard-time"; a config with position =
        bottom or top draws the band beside every --scene (the chart laid out in what the band leaves).
        --values prints the band and each item's words.

        --scene portfolio: the holdings' figures at --now in the home currency with --values
        (portfolio_value, portfolio_cost, total_gain, day_gain, the percentages, each position, alerts;
        with [portfolio] show = percent only the percentages), and with --output the portfolio's screen
        as the daemon shows it (`ctl show portfolio`).
        """

    /// What `--scene` names without `--config`: the chart's scenes and a watchlist of --data files.
    static let scenes: [SceneKind] = [.chart, .bars, .draw, .watchlist]
    /// With `--config`, also what the daemon shows besides them (the tape alone, the portfolio).
    static let configScenes: [SceneKind] = scenes + [.tape, .portfolio]

    static func usage(_ kinds: [SceneKind]) -> String { kinds.map(\.name).joined(separator: "|") }

    /// `--scene`'s scene among `accepted` (absent: the chart).
    static func sceneKind(_ text: String?, among accepted: [SceneKind]) throws(UsageError) -> SceneKind {
        guard let text else { return .chart }
        guard let kind = SceneKind.parse(text, among: accepted) else {
            throw UsageError("render: --scene \"\(text)\" is not \(SceneKind.names(accepted))")
        }
        return kind
    }

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "render", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        let dataPaths = try args.repeatable("--data")
        let zoneName = try args.option("--time-zone") ?? SampleMarket.timeZoneIdentifier
        let rangeText = try args.option("--range") ?? "1M"
        let size = try args.size() ?? (1920, 1080)
        let paletteName = try args.option("--palette") ?? "standard"
        let output = try args.option("--output")
        let transition = try args.option("--transition")
        let fps = try args.integer("--fps", in: 1...240) ?? 60
        let duration = try args.number("--duration", in: 0.05...30)
        let outputDir = try args.option("--output-dir")
        let adjusted = args.flag("--adjusted")
        let sceneText = try args.option("--scene")
        let configPath = try args.option("--config")
        // With --config a moment on the daemon's monotonic clock (a crawling tape's), which runs
        // from the machine's boot: the time a preview names.
        let at = try args.number("--at", in: configPath == nil ? 0...3600 : 0...1e9)
        let scrubX = try args.number("--scrub", in: -100_000...100_000)
        let axisName = try args.option("--time-axis") ?? "trading"
        let printValues = args.flag("--values")
        let currencyCode = try args.option("--currency") ?? "USD"
        let localeName = try args.option("--locale")
        let colorsName = try args.option("--colors")
        let exchangeName = try args.option("--exchange")
        let nowText = try args.option("--now")
        let baselineName = try args.option("--baseline-1d")
        let extendedName = try args.option("--extended-hours")
        let message = try args.option("--message")
        let brightness = Double(try args.integer("--brightness", in: 0...100) ?? 100) / 100
        let instrumentID = try args.option("--instrument")
        let outputSection = try args.option("--output-section")
        try args.finish()
        if let configPath {
            let others = [("--data", !dataPaths.isEmpty), ("--time-zone", args.given("--time-zone")), ("--palette", args.given("--palette")),
                          ("--transition", transition != nil), ("--adjusted", adjusted),
                          ("--time-axis", args.given("--time-axis")), ("--currency", args.given("--currency")),
                          ("--locale", localeName != nil), ("--colors", colorsName != nil), ("--exchange", exchangeName != nil),
                          ("--baseline-1d", baselineName != nil), ("--extended-hours", extendedName != nil)]
            if let (name, _) = others.first(where: { $0.1 }) {
                throw UsageError("render: \(name) comes from the config with --config; leave it out")
            }
            return try renderConfig(configPath, instrument: instrumentID, scene: sceneKind(sceneText, among: configScenes),
                                    range: args.given("--range") ? rangeText : nil, now: nowText,
                                    size: args.given("--size") ? size : nil, scrubX: scrubX, values: printValues, output: output,
                                    brightness: brightness, at: at, message: message, outputSection: outputSection,
                                    sceneGiven: args.given("--scene"))
        }
        guard instrumentID == nil else { throw UsageError("render: --instrument goes with --config") }
        guard outputSection == nil else { throw UsageError("render: --output-section goes with --config") }
        guard message == nil else { throw UsageError("render: --message goes with --config") }
        var rangeOptions = RangeOptions()
        if let baselineName {
            guard let b = DayBaseline(rawValue: baselineName.lowercased()) else {
                throw UsageError("render: --baseline-1d \"\(baselineName)\" is not previous-close or first")
            }
            rangeOptions.dayBaseline = b
        }
        if let extendedName {
            guard let e = ExtendedHoursDisplay(rawValue: extendedName.lowercased()) else {
                throw UsageError("render: --extended-hours \"\(extendedName)\" is not show, dim or hide")
            }
            rangeOptions.extendedHours = e
        }
        var calendar = ExchangeCalendar.forTimeZone(zoneName)
        if let exchangeName {
            guard let c = ExchangeCalendar.named(exchangeName) else {
                throw UsageError("render: --exchange \"\(exchangeName)\" is not one of \(ExchangeCalendar.all.map(\.mic).joined(separator: " "))")
            }
            calendar = c
        }

        // The same rules as the daemon's: a config with just these keys set.
        var numbers = Config()
        guard Currency(code: currencyCode) != nil else {
            throw UsageError("render: --currency \"\(currencyCode)\" is not an ISO 4217 code like USD, GBp, ZAc, ILA, or none")
        }
        if let localeName {
            guard let locale = NumberLocale(identifier: localeName) else {
                throw UsageError("render: --locale \"\(localeName)\" is not one of \(NumberLocale.knownIdentifiers.joined(separator: ", "))")
            }
            numbers.locale = locale
        }
        if let colorsName {
            guard let trend = NumberLocale.Trend(rawValue: colorsName.lowercased()) else {
                throw UsageError("render: --colors \"\(colorsName)\" is not green-up or red-up")
            }
            numbers.trend = trend
        }

        guard let range = ChartRange(label: rangeText) else {
            throw UsageError("render: --range \"\(rangeText)\" is not one of \(ChartRange.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let kind = try sceneKind(sceneText, among: scenes)
        let watchlist = kind == .watchlist
        let scene = ScreenModel.Scene(kind) ?? .line
        guard watchlist || dataPaths.count <= 1 else {
            throw UsageError("render: --data is given \(dataPaths.count) times; only --scene watchlist takes several")
        }
        guard dataPaths.count <= WatchlistLayout.maximumCount else {
            throw UsageError("render: --data is given \(dataPaths.count) times; the watchlist shows at most \(WatchlistLayout.maximumCount)")
        }
        let dataPath = dataPaths.first
        guard let axis = TimeAxis(rawValue: axisName) else {
            throw UsageError("render: --time-axis \"\(axisName)\" is not trading or calendar")
        }
        guard ScreenModel.palette(named: paletteName) != nil else {
            throw UsageError("render: --palette \"\(paletteName)\" is not standard or color-blind")
        }
        numbers.paletteName = paletteName
        let palette = numbers.palette
        var transitionRanges: (ChartRange, ChartRange)?
        if let transition {
            let parts = transition.split(separator: ":").map(String.init)
            guard parts.count == 2, let a = ChartRange(label: parts[0]), let b = ChartRange(label: parts[1]) else {
                throw UsageError("render: --transition \"\(transition)\" is not FROM:TO with ranges like 1M:1Y")
            }
            guard let outputDir else { throw UsageError("render: --transition needs --output-dir DIR") }
            guard output == nil else { throw UsageError("render: --transition writes to --output-dir, not --output") }
            guard FileSystem.isDirectory(outputDir) else {
                throw UsageError("render: --output-dir \"\(outputDir)\" is not an existing directory")
            }
            transitionRanges = (a, b)
        } else {
            guard output != nil || printValues else { throw UsageError("render: --output FILE.png is required") }
            guard outputDir == nil else { throw UsageError("render: --output-dir goes with --transition") }
            _ = output
        }

        if watchlist {
            guard transition == nil, scrubX == nil, !printValues else {
                throw UsageError("render: --scene watchlist takes no --transition, --scrub or --values")
            }
            guard let output else { throw UsageError("render: --scene watchlist needs --output FILE.png") }
            let fonts: FontSet
            do { fonts = try FontSet.load() } catch { Log.error("render: \(error)"); return 1 }
            let phrases = Phrases.drawable(locale: numbers.locale.identifier, fonts: fonts)
            var entries: [WatchlistEntry] = []
            do {
                let zone = try ExchangeTimeZone(identifier: zoneName)
                for path in dataPaths {
                    var one = try Instrument.load(csv: path, timeZone: zone, priceField: adjusted ? .adjustedClose : .close,
                                                  warn: { Log.warning($0) })
                    one.priceFormat = numbers.priceFormat(currencyCode: currencyCode)
                    one.phrases = phrases
                    // The market mark when a moment or an exchange is asked for, as the header's line.
                    var state: MarketStatus.State?
                    if nowText != nil || exchangeName != nil, let calendar {
                        var now = [one.market.intraday, one.market.daily].compactMap { $0?.last?.time }.max() ?? 0
                        if let nowText {
                            guard let parsed = parseNow(nowText, zone: zone) else {
                                throw UsageError("render: --now \"\(nowText)\" is not a time like 2026-11-27T11:30 (exchange time) or Unix seconds")
                            }
                            now = parsed
                        }
                        state = MarketStatus(calendar: calendar, zone: zone, at: now).state
                    }
                    entries.append(WatchlistEntry(instrument: one, market: state))
                }
            } catch {
                throw UsageError("render: \(error)")
            }
            if entries.isEmpty {
                var sample = Instrument.sample(phrases: phrases)
                sample.priceFormat = numbers.priceFormat(currencyCode: currencyCode)
                entries = [WatchlistEntry(instrument: sample)]
            }
            let board = WatchlistScene(entries: entries, width: size.width, height: size.height, fonts: fonts,
                                       palette: palette, range: range)
            let boardRenderer = SceneRenderer()
            boardRenderer.brightness = brightness
            do { try PNG.write(boardRenderer.render(board).buffer, to: output) } catch { Log.error("render: \(error)"); return 1 }
            // A panel too small for every tile shows the first ones; say so rather than count what is not there.
            let left = entries.count - board.entries.count
            printLine("wrote \(output) (\(size.width)x\(size.height), watchlist of \(board.entries.count)"
                      + (left > 0 ? " (\(left) more do not fit)" : "") + ", \(range))")
            return 0
        }

        var instrument: Instrument
        let zone: ExchangeTimeZone
        do {
            zone = try ExchangeTimeZone(identifier: zoneName)
            if let dataPath {
                instrument = try Instrument.load(csv: dataPath, timeZone: zone, priceField: adjusted ? .adjustedClose : .close,
                                                 warn: { Log.warning($0) })
            } else {
                instrument = Instrument.sample()
            }
        } catch {
            throw UsageError("render: \(error)")
        }
        instrument.priceFormat = numbers.priceFormat(currencyCode: currencyCode)
        if dataPath != nil { instrument.market.calendar = calendar }
        let newest = [instrument.market.intraday, instrument.market.daily].compactMap { $0 }
            .max { ($0.last?.time ?? 0) < ($1.last?.time ?? 0) }
        // "Now" for the market status: --now, else the newest data point's time.
        var now = newest?.last?.time ?? 0
        if let nowText {
            guard let parsed = parseNow(nowText, zone: zone) else {
                throw UsageError("render: --now \"\(nowText)\" is not a time like 2026-11-27T11:30 (exchange time) or Unix seconds")
            }
            now = parsed
        }
        let fonts: FontSet
        do { fonts = try FontSet.load() } catch { Log.error("render: \(error)"); return 1 }
        instrument.phrases = Phrases.drawable(locale: numbers.locale.identifier, fonts: fonts)
        let marketNote = MarketNote(calendar: instrument.market.calendar, zone: instrument.market.timeZone, now: now,
                                    fetch: nil, newest: newest, staleness: nil, phrases: instrument.phrases)
        // The selector offers what the daemon's would: the ranges this data can draw.
        // The standard six, and YTD or MAX when asked for (as a config's ranges = would name them).
        let asked = [range] + (transitionRanges.map { [$0.0, $0.1] } ?? [])
        let candidates = ChartRange.allCases.filter { ChartRange.standard.contains($0) || asked.contains($0) }
        let offered = dataPath == nil ? candidates : instrument.market.drawableRanges(of: candidates, options: rangeOptions)
        let model = ScreenModel(instrument: instrument, width: size.width, height: size.height, fonts: fonts,
                                palette: palette, range: transitionRanges?.0 ?? range, ranges: offered)
        if axis != model.timeAxis { model.timeAxis = axis }
        model.rangeOptions = rangeOptions
        // The status line is drawn when asked for (--now or --exchange); plain renders stay as they were.
        if nowText != nil || exchangeName != nil { model.statusNote = marketNote.text }

        if let (from, to) = transitionRanges {
            guard !model.selection(for: from).points.isEmpty, !model.selection(for: to).points.isEmpty else {
                throw UsageError("render: \(dataPath ?? "sample"): no data for \(from) or \(to)")
            }
            let seconds = duration ?? MorphTiming.standard.duration
            let frames = max(2, Int((seconds * Double(fps)).rounded()) + 1)
            model.timing = MorphTiming(duration: seconds, curve: MorphTiming.standard.curve)
            model.select(to, at: 0)
            let renderer = SceneRenderer()
            renderer.brightness = brightness
            for i in 0..<frames {
                let t = Double(i) / Double(fps)
                let canvas = renderer.render(model, at: t)
                let name = "\(outputDir!)/frame-\(pad4(i)).png"
                do { try PNG.write(canvas.buffer, to: name) } catch { Log.error("render: \(error)"); return 1 }
            }
            printLine("wrote \(frames) frames of \(from) -> \(to) to \(outputDir!)")
            return 0
        }

        guard !model.selection(for: range).points.isEmpty else {
            throw UsageError("render: \(dataPath ?? "sample"): no data for range \(range)")
        }
        if scene != .line { model.show(scene, at: 0) }
        if let scrubX { model.scrub(atX: scrubX) }
        // Without --at, the picture once every animation has settled.
        var time = at ?? 0
        if at == nil { while model.isAnimating(at: time) && time < 60 { time += 0.5 } }
        let still = SceneRenderer()
        still.brightness = brightness
        let canvas = still.render(model, at: time)
        if let output {
            do { try PNG.write(canvas.buffer, to: output) } catch { Log.error("render: \(error)"); return 1 }
            if !printValues { printLine("wrote \(output) (\(size.width)x\(size.height), \(instrument.name), \(range))") }
        }
        if printValues {
            var status = KioskStatus(values: model.values())
            status.sessionState = marketNote.state
            status.asOf = marketNote.asOf
            print(status.keyValueLines(only: KioskStatus.pictureKeys), terminator: "")
            printLine("animating=\(model.isAnimating(at: time))")
        }
        return 0
    }

    /// `render --config`: the daemon's core on the config, at `now`, settled (see `StillFrame`).
    static func renderConfig(_ path: String, instrument: String?, scene kind: SceneKind, range rangeText: String?,
                             now nowText: String?, size: (width: Int, height: Int)?, scrubX: Double?, values: Bool,
                             output: String?, brightness: Double = 1, at: Double? = nil,
                             message: String? = nil, outputSection: String? = nil, sceneGiven: Bool = true) throws(UsageError) -> Int32 {
        guard output != nil || values else { throw UsageError("render: --output FILE.png or --values is required") }
        var bannerText: String?
        if let message {
            // The words `ctl message` would take, refused as it refuses them.
            switch ControlCommand.parse("message " + ControlCommand.word(message)) {
            case .success(.message(let text, _)): bannerText = text
            case .success: break
            case .failure(let error): throw UsageError("render: --message: \(error.message)")
            }
        }
        if kind == .portfolio {
            return try renderPortfolio(path, range: rangeText, now: nowText, size: size, scrubX: scrubX, values: values, output: output,
                                       brightness: brightness, at: at, message: bannerText)
        }
        let tapeScene = kind == .tape
        // The tape alone is drawn beside no scene of its own: the chart is what a band would sit beside.
        let scene = tapeScene ? SceneKind.chart : kind
        var range: ChartRange?
        if let rangeText {
            guard let r = ChartRange(label: rangeText) else {
                throw UsageError("render: --range \"\(rangeText)\" is not one of \(ChartRange.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            range = r
        }
        let (config, issues) = Config.load(path: path)
        if let unreadable = issues.first(where: { $0.severity == .error && $0.line == 0 }) {
            Log.error("render: \(unreadable)")
            return 1
        }
        if let instrument, !config.instruments.contains(where: { $0.id == instrument }) {
            throw UsageError("render: --instrument \"\(instrument)\" is not in \(path) (it has: "
                             + "\(config.instruments.map(\.id).joined(separator: " ")))")
        }
        // --now in the instrument's exchange time, as the daemon's header speaks it.
        var wall = WallClock.now()
        if let nowText {
            let id = instrument ?? config.instruments.first?.id
            let zone = id.flatMap { Daemon.setup(for: config, file: path).zones[$0] } ?? .utc
            guard let parsed = parseNow(nowText, zone: zone) else {
                throw UsageError("render: --now \"\(nowText)\" is not a time like 2026-11-27T11:30 (exchange time) or Unix seconds")
            }
            wall = Double(parsed)
        }
        var request = StillFrame.Request(configPath: path, now: wall)
        request.show = ShowRequest(instrumentID: instrument, range: range, scene: scene)
        if let outputSection {
            // The screen the daemon drives for that section: its scene unless one is asked for.
            let sections = config.effectiveOutputs
            guard !config.outputs.isEmpty, let wanted = OutputConfig.Name(outputSection),
                  let index = sections.firstIndex(where: { $0.name.same(as: wanted) }) else {
                throw UsageError("render: --output-section \"\(outputSection)\" is not an [output] section of \(path)"
                                 + (config.outputs.isEmpty ? " (it has none)" : " (it has: \(sections.map(\.name.description).joined(separator: " ")))"))
            }
            request.output = index
            if !sceneGiven && instrument == nil && range == nil { request.show = nil }
        }
        // The tape alone when the config has none (--scene tape with position = off).
        if tapeScene && config.tapePosition == .off { request.tape = .full }
        // The tape alone shows no scene whose keys could be said.
        let alone = (request.tape ?? config.tapePosition) == .full
        return try drawStill(request, size: size, scrubX: scrubX, brightness: brightness, at: at, message: bannerText,
                             values: values, output: output, printsStatus: !alone) { result in
            "\(result.status.instrumentName ?? "-"), \(result.status.range ?? "-")"
        }
    }

    /// Draws `request` as the daemon shows it (`StillFrame`), writes `output` and prints the
    /// status file's picture keys with `values` (unless `printsStatus` is false) and, with a tape,
    /// its band and words.
    static func drawStill(_ request: StillFrame.Request, size: (width: Int, height: Int)?, scrubX: Double?, brightness: Double,
                          at: Double?, message: String?, values: Bool, output: String?, printsStatus: Bool = true,
                          describe: (StillFrame.Result) -> String) throws(UsageError) -> Int32 {
        var request = request
        request.size = size
        request.scrubX = scrubX
        request.brightness = brightness
        request.at = at
        request.message = message
        let fonts: FontSet
        do { fonts = try FontSet.load() } catch { Log.error("render: \(error)"); return 1 }
        guard let result = StillFrame.render(request, fonts: fonts) else {
            Log.error("render: \(request.configPath): nothing was drawn")
            return 1
        }
        for message in result.messages { Log.warning("render: \(message)") }
        if let output {
            do { try PNG.write(result.picture, to: output) } catch { Log.error("render: \(error)"); return 1 }
        }
        if values {
            if printsStatus { print(result.status.keyValueLines(only: KioskStatus.pictureKeys), terminator: "") }
            if let tape = result.tape, let b = result.band {
                printLine("tape_position=\(tape.position.rawValue)")
                printLine("tape_band=\(b.x0),\(b.y0),\(b.x1),\(b.y1)")
                printLine("tape_items=\(tape.items.count)")
                for (i, item) in tape.items.enumerated() {
                    printLine("tape_item_\(i)=\(item.name) \(item.price) \(item.change)" + (item.note.map { " [\($0)]" } ?? ""))
                }
            }
        } else if let output {
            let tape = result.tape.map { ", tape \($0.position.rawValue), \($0.items.count) items, t=\(result.time) s" } ?? ""
            printLine("wrote \(output) (\(result.picture.width)x\(result.picture.height), \(describe(result))\(tape))")
        }
        return 0
    }

    /// What `render --scene portfolio --values` prints at `now`.
    static func portfolioValues(_ portfolio: Portfolio, at now: Int64) -> String {
        let config = portfolio.config
        var text = portfolio.figures(at: now).map { Portfolio.keyValueLines($0, show: config.portfolio.show) } ?? ""
        // The alerts in effect, as a daemon that had run through the last month would hold them.
        var states: [String: AlertState] = [:]
        for alert in config.alerts {
            guard let id = alert.instrument, let inst = config.instruments.first(where: { $0.id == id }) else { continue }
            states[alert.name] = Alerts.replay(alert, daily: portfolio.daily[id],
                                               field: inst.adjusted ? .adjustedClose : .close, now: now)
        }
        let active = Alerts.active(config.alerts, states: states)
        text += "alerts=" + (active.isEmpty ? "-" : active.joined(separator: ",")) + "\n"
        return text
    }

    /// `render --config FILE --scene portfolio`: the holdings' figures at --now (`--values`) and the
    /// portfolio's screen as the daemon shows it (`ctl show portfolio`: its core on the config).
    static func renderPortfolio(_ path: String, range rangeText: String?, now nowText: String?,
                                size: (width: Int, height: Int)?, scrubX: Double?, values: Bool,
                                output: String?, brightness: Double = 1, at: Double? = nil,
                                message: String? = nil) throws(UsageError) -> Int32 {
        let (config, issues) = Config.load(path: path)
        if let unreadable = issues.first(where: { $0.severity == .error && $0.line == 0 }) {
            Log.error("render: \(unreadable)")
            return 1
        }
        for issue in issues { Log.warning("render: config: \(issue)") }
        guard let home = config.homeCurrency else {
            throw UsageError("render: \(path) holds nothing: give an [instrument] quantity = or lot = for --scene portfolio")
        }
        guard config.portfolio.show != .off else { throw UsageError("render: \(path) says [portfolio] show = off") }
        var range: ChartRange?
        if let rangeText {
            guard let r = ChartRange(label: rangeText) else {
                throw UsageError("render: --range \"\(rangeText)\" is not one of \(ChartRange.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            range = r
        }
        let zoneID = config.instruments.first { !$0.holding.isEmpty }?.timeZone ?? "UTC"
        let zone = (try? ExchangeTimeZone(identifier: zoneID)) ?? .utc
        var now = Int64(WallClock.now())
        if let nowText {
            guard let parsed = parseNow(nowText, zone: zone) else {
                throw UsageError("render: --now \"\(nowText)\" is not a time like 2026-11-27T11:30 (exchange time) or Unix seconds")
            }
            now = parsed
        }
        let (portfolio, problems) = PortfolioData.load(config: config)
        for problem in problems { Log.warning("render: data: \(problem)") }
        if values { print(portfolioValues(portfolio, at: now), terminator: "") }
        guard let output else { return 0 }
        guard portfolio.valueSeries(name: "Portfolio", upTo: now) != nil else {
            throw UsageError("render: \(path): no date on which every holding has a price and a rate")
        }
        var request = StillFrame.Request(configPath: path, now: Double(now))
        request.show = ShowRequest(instrumentID: KioskCore.portfolioID, range: range)
        // --values has printed the figures; the picture is only written.
        return try drawStill(request, size: size, scrubX: scrubX, brightness: brightness, at: at, message: message,
                             values: false, output: output) { result in
            "portfolio in \(home), \(result.status.range ?? "-")"
        }
    }

    /// `2026-11-27T11:30` (or with a space, optionally `:SS`) in the exchange's time, or Unix seconds.
    static func parseNow(_ text: String, zone: ExchangeTimeZone) -> Int64? {
        if let seconds = Int64(text), seconds >= 0, seconds < 7_258_118_400 { return seconds }
        let parts = text.split(omittingEmptySubsequences: false) { $0 == "T" || $0 == " " }
        guard parts.count == 2, let date = CalendarCommand.parseDate(String(parts[0])) else { return nil }
        let hms = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(hms.count), hms.allSatisfy({ $0 != nil }),
              let local = CivilDateTime(date: date, hour: hms[0]!, minute: hms[1]!, second: hms.count == 3 ? hms[2]! : 0)
        else { return nil }
        return zone.unixTime(for: local)
    }

    static func pad4(_ i: Int) -> String {
        let s = String(i)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
