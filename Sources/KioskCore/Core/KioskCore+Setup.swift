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

    func start() {
        readiness.start(at: now.mono)
        emit(.openInput)
        emit(.openDisplay)
        armCycle(from: now.mono)
        decidePower()
        armBurnIn()
    }

    func apply(_ setup: KioskSetup, initial: Bool) {
        let old = config
        config = setup.config
        configFile = setup.configFile
        localZone = setup.localZone
        configProblems = setup.problems
        round.configure(Round.Settings(config: config))
        power.configure(rule: ScreenPower(config: config, timeZone: localZone, zones: setup.zones), nightPalette: config.nightPalette)
        if cec.setting != config.cec {
            // Another adapter (or none): what is known of the TV starts again; the shell reopens.
            cec = CECPower(setting: config.cec)
            power.forgetSchedule()
        }
        frames.configure(burnIn: BurnInShift(config: config))
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
        if !initial {
            perform(link.reconfigured(from: old, to: config))
            if old.inputEnabled != config.inputEnabled || old.seat != config.seat || old.calibration != config.calibration {
                log(.notice, "reload: [input] changed; reopening the input devices")
                emit(.openInput)
            }
        }
    }

    func reconfigure(_ setup: KioskSetup) {
        let wasShowing = currentID
        apply(setup, initial: false)
        for p in setup.problems { log(.error, "config: \(p)") }
        // Stay on the instrument that was shown when it is still configured.
        round.reloaded(instrument: entries.firstIndex { $0.spec.id == wasShowing } ?? 0)
        rebuildModel()
        rebuildWatchlist()
        armCycle(from: now.mono)
        decidePower()
        armBurnIn()
        repaintWhole()
        emit(.ready(status: nil))
    }

    var currentID: String? {
        showingSample ? "sample" : entries.isEmpty ? nil : entries[instrumentIndex % entries.count].spec.id
    }
}
