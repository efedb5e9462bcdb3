// KioskCore: Control socket requests, answered in one line.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Control socket

    /// A request from the control socket: carried out as a touch or a key would be, answered in one
    /// line. Requests that change what is shown work with the screen off or the display gone (they
    /// show when it comes back); only `screen` lights or darkens it.
    func control(_ command: ControlCommand, id: UInt64) {
        func reply(_ text: String? = nil) { emit(.controlReply(id: id, .ok(text))) }
        func refuse(_ text: String) { emit(.controlReply(id: id, .error(.refused(text)))) }
        let offNote = screenOn ? "" : " (the screen is off)"
        switch command {
        case .version: reply("tickerboard-control \(controlProtocolVersion)")
        case .instruments: reply(instrumentsJSON())
        case .status: emit(.controlStatus(id: id, status()))
        case .screenshot:
            guard displayState == .presenting, stats.presentedFrames > 0 else {
                return refuse("no picture: \(displayStatus)")
            }
            emit(.screenshot(id: id))
        case .reload: emit(.reloadConfig(id: id))
        case .pause, .resume:
            if command == .pause { round.pause() } else { round.resume(at: now.mono) }
            log(.notice, "control: cycling \(paused ? "paused" : "resumed")")
            reply(paused ? "paused" : "resumed")
        case .next:
            guard let model else { return refuse("nothing is shown yet: \(displayStatus)") }
            if showingSample || entries.count < 2 {
                return refuse("one instrument only")
            }
            if model.scrubIndex != nil { model.endScrub() }
            perform(round.next(at: now.mono, of: entries.count, first: firstRange))
            repaintWhole()
            reply("showing \(currentID ?? "-")" + offNote)
        case .show(let instrument, let rangeName):
            guard model != nil else { return refuse("nothing is shown yet: \(displayStatus)") }
            guard showingSample ? [SampleMarket.symbol, currentID].contains(instrument) : entries.contains(where: { $0.spec.id == instrument }) else {
                let ids = showingSample ? [SampleMarket.symbol] : entries.map(\.spec.id)
                return refuse("no instrument \(instrument) in the config; there are \(ids.prefix(12).joined(separator: ", "))")
            }
            var range: ChartRange?
            if let rangeName {
                guard let r = controlRange(rangeName) else { return refuse("no range \(rangeName); the config has \(config.ranges.map(\.rawValue).joined(separator: " "))") }
                range = r
            }
            show(ShowRequest(instrumentID: showingSample ? nil : instrument, range: range))
            if let range, let shown = self.model?.range, shown != range {
                return reply("showing \(instrument) \(shown.rawValue): it cannot draw \(range.rawValue)" + offNote)
            }
            reply("showing \(instrument) \(self.model?.range.rawValue ?? "")" + offNote)
        case .range(let name):
            guard let model else { return refuse("nothing is shown yet: \(displayStatus)") }
            guard let range = controlRange(name) else {
                return refuse("no range \(name); the config has \(config.ranges.map(\.rawValue).joined(separator: " "))")
            }
            round.touched(at: now.mono)
            if showingWatchlist, let watchlist {
                watchlist.select(range)
                needs.insert(.picture)
                return reply("watchlist \(range.rawValue)" + offNote)
            }
            guard shownRanges.contains(range) else {
                return refuse("\(currentID ?? "this instrument") cannot draw \(range.rawValue) (its data has \(shownRanges.map(\.rawValue).joined(separator: " ")))")
            }
            if model.scrubIndex != nil { model.endScrub() }
            model.select(range, at: frameTime())
            round.shown(range)
            needs.insert(.picture)
            reply("\(currentID ?? "-") \(range.rawValue)" + offNote)
        case .scene(let name):
            guard model != nil else { return refuse("nothing is shown yet: \(displayStatus)") }
            guard let scene = SceneKind.parse(name, among: controlScenes) else {
                if SceneKind(parsing: name) == .watchlist { return refuse("no watchlist: [chart] watchlist = off") }
                return refuse("no scene \(name); there are \(SceneKind.names(controlScenes, last: "and"))")
            }
            show(ShowRequest(instrumentID: showingSample ? nil : currentID, range: scene == .watchlist ? nil : model?.range,
                             scene: scene))
            reply("scene \(scene.name), cycling held (resume to go on)" + offNote)
        case .screen, .brightness, .message, .clearMessage:
            controlEveryOutput(command, id: id)
        }
    }

    /// The requests every output carries out (`KioskEvent.reachesEveryOutput`), answered once.
    func controlEveryOutput(_ command: ControlCommand, id: UInt64) {
        func reply(_ text: String) { emit(.controlReply(id: id, .ok(text))) }
        var on = false
        onEachScreen {
            switch command {
            case .screen(let mode): perform(power.screen(mode, at: now.wall))
            case .brightness(let percent): perform(power.brightness(percent, at: now.wall))
            case .message(let text, let seconds):
                banner.post(text, until: now.mono + (seconds ?? ControlCommand.messageSecondsDefault))
                repaintWhole()
            case .clearMessage: if banner.clearMessage() { repaintWhole() }
            default: break
            }
            on = on || screenOn
        }
        let offNote = on ? "" : " (the screen is off)"
        switch command {
        case .screen(let mode): reply("screen \(mode.rawValue): \(on ? "on" : "off")")
        case .brightness(let percent):
            reply(percent > 0 ? "brightness \(percent) % (\(brightnessMeans)), until screen auto" : "screen off")
        case .message(_, let seconds):
            let duration = seconds ?? ControlCommand.messageSecondsDefault
            log(.notice, "control: message for \(Int(duration)) s")
            reply("message for \(Int(duration)) s" + offNote)
        case .clearMessage: reply("no message")
        default: break
        }
    }

    /// `ctl instruments`: each instrument's price and day change (`MarketData.dayQuote`, the same
    /// as the tape's and the header's on 1D), its market and staleness, and the configured ranges
    /// and the scenes.
    func instrumentsJSON() -> String {
        func q(_ s: String?) -> String { s.map(FetchStatus.quoted) ?? "null" }
        // The status file's numbers (a close of 1e303 printed "inf", which no JSON reader takes).
        func n(_ v: Double?) -> String { JSONValue.number(v).compactText }
        var items: [String] = []
        let health = Dictionary(instrumentHealth().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        if !showingSample {
            // The portfolio is no instrument: its value is not for the bridge's sensors.
            for i in tileIndices {
                let entry = entries[i]
                var fields = ["\"id\": \(q(entry.spec.id))", "\"name\": \(q(entry.spec.name ?? entry.spec.id))",
                              "\"currency\": \(q(entry.spec.currency))"]
                if entry.hasData, entry.zone != nil {
                    let day = instrument(of: entry).market.dayQuote(options: config.rangeOptions)
                    let state = tileState(i)
                    fields += ["\"price\": \(n(day?.price))", "\"change\": \(n(day?.change))",
                               "\"change_percent\": \(n(day?.changePercent))", "\"previous_close\": \(n(day?.previousClose))",
                               "\"session_state\": \(q(state.market?.rawValue))", "\"stale\": \(state.stale)"]
                } else {
                    fields += ["\"price\": null", "\"waiting_for\": \(q(placeholderText(for: entry, phrases: .english)))"]
                }
                // The time of its newest data and whether it has a problem, as the metrics say them.
                let health = health[entry.spec.id]
                fields += ["\"last_data_time\": \(health?.lastDataTime.map(String.init) ?? "null")", "\"problem\": \(health?.problem ?? false)"]
                items.append("{" + fields.joined(separator: ", ") + "}")
            }
        } else {
            items.append("{\"id\": \(q(SampleMarket.symbol)), \"name\": \(q(SampleMarket.name)), \"currency\": \"USD\"}")
        }
        let ranges = config.ranges.map { q($0.rawValue) }.joined(separator: ", ")
        let scenes = controlScenes.map { q($0.name) }.joined(separator: ", ")
        return "{\"instruments\": [" + items.joined(separator: ", ") + "], \"ranges\": [\(ranges)], \"scenes\": [\(scenes)]}"
    }

    /// The scenes `ctl scene` takes here: the protocol's, the watchlist only when there is one.
    var controlScenes: [SceneKind] { ControlCommand.scenes.filter { $0 != .watchlist || watchlist != nil } }

    /// A range a request names, if the config has it.
    func controlRange(_ name: String) -> ChartRange? {
        ChartRange(rawValue: name.uppercased()).flatMap { config.ranges.contains($0) ? $0 : nil }
    }
}
