// KioskCore: Start and configuration: a setup applied at start and on reload.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Start and configuration

    /// A setup at start or on reload: the process's part once, then each output's. Outputs added,
    /// removed or renamed start again from nothing (the shell opens them again: `.reopenDisplay`).
    func apply(_ setup: KioskSetup, initial: Bool) {
        let old = self.setup.config
        self.setup = setup
        configProblems = setup.problems
        if cec.setting != setup.config.cec {
            // Another adapter (or none): what is known of the TV starts again; the shell reopens.
            cec = CECPower(setting: setup.config.cec)
            for i in screens.indices { screens[i].power.forgetSchedule() }
        }
        // What each output showed, to stay on it when it is still configured.
        var shown: [String?] = []
        for i in screens.indices { on(i) { shown.append(currentID) } }
        let outputs = setup.config.effectiveOutputs
        // An output whose section is new (added, or another name at its place) starts from nothing.
        let oldNames = old.effectiveOutputs.map(\.name)
        var restarted = [Bool](repeating: false, count: outputs.count)
        if !initial, outputs.map(\.name) != oldNames {
            screens = outputs.indices.map { i in
                if i < screens.count, i < oldNames.count, oldNames[i] == outputs[i].name { return screens[i] }
                restarted[i] = true
                return Screen(setup: setup, output: i)
            }
        }
        for i in screens.indices {
            on(i) {
                let before = self.config
                let mine = setup.config.forOutput(i)
                self.config = mine
                round.configure(Round.Settings(config: mine))
                power.configure(rule: ScreenPower(config: mine, timeZone: localZone, zones: setup.zones), nightPalette: mine.nightPalette)
                frames.configure(burnIn: BurnInShift(config: mine))
                if !initial, !restarted[i] { perform(link.reconfigured(from: before, to: mine)) }
            }
        }
        let config = setup.config
        var fresh: [Entry] = []
        for spec in config.instruments {
            // Keep what is known of an instrument across reloads: a reload whose path or time zone
            // is wrong must not replace real data with nothing.
            let previous = entries.first { $0.spec.id == spec.id }
            var entry = Entry(spec: spec, zone: setup.zones[spec.id] ?? previous?.zone)
            entry.fetch = previous?.fetch
            if let previous, previous.spec.adjusted == spec.adjusted {
                entry.daily = spec.dailyFile == nil ? nil : previous.daily
                entry.intraday = spec.intradayFile == nil ? nil : previous.intraday
            }
            fresh.append(entry)
        }
        if Self.showsPortfolio(config), let home = config.homeCurrency {
            // A screen of its own at the end of the round, drawn like an instrument from the value series.
            var spec = InstrumentConfig(id: Self.portfolioID)
            spec.name = config.portfolio.show == .percent ? "Portfolio" : "Portfolio · " + home
            spec.currency = home
            spec.aroundTheClock = true
            let firstHeld = config.instruments.first { !$0.holding.isEmpty }
            var entry = Entry(spec: spec, zone: firstHeld.flatMap { setup.zones[$0.id] } ?? .utc)
            entry.isPortfolio = true
            entry.daily = entries.last { $0.isPortfolio }?.daily
            fresh.append(entry)
        }
        entries = fresh
        rates = rates.filter { id, _ in config.fxPairs.contains { $0.id == id } }
        recomputePortfolio(logged: false)
        // A reload keeps what the alerts of the same name remember; a start takes the saved states.
        var states: [String: AlertState] = [:]
        for alert in config.alerts {
            if let kept = alertStates[alert.name] ?? setup.alertStates[alert.name] { states[alert.name] = kept }
        }
        alertStates = states
        alertDue = config.alerts.isEmpty ? nil : now.mono
        if !initial, old.inputEnabled != config.inputEnabled || old.seat != config.seat || old.calibration != config.calibration {
            log(.notice, "reload: [input] changed; reopening the input devices")
            emit(.openInput)
        }
        guard !initial else { return }
        for i in screens.indices { on(i) { reconfigure(showing: i < shown.count ? shown[i] : nil, restarted: restarted[i]) } }
    }

    /// An output after a reload, the process's part applied. A new set of outputs starts each
    /// as at start, its display opened again.
    func reconfigure(showing: String?, restarted: Bool) {
        if restarted {
            emit(.reopenDisplay)
        } else {
            // Stay on the instrument that was shown when it is still configured.
            round.reloaded(instrument: entries.firstIndex { $0.spec.id == showing } ?? 0)
            rebuildModel()
            rebuildWatchlist()
        }
        armCycle(from: now.mono)
        decidePower()
        armBurnIn()
        repaintWhole()
    }

    var currentID: String? {
        showingSample ? "sample" : entries.isEmpty ? nil : entries[instrumentIndex % entries.count].spec.id
    }
}
