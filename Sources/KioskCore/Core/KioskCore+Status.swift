// KioskCore: Readiness and the status file.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Readiness, status

    public var isReady: Bool { readiness.isReady }

    /// The display state as the status file names it (screen-off states included).
    public var displayStatus: String {
        if !screenOn && displayState == .presenting {
            if screenControl == .off { return "off-control" }
            return power.reason == .idle ? "off-idle" : "off-schedule"
        }
        return displayState.rawValue
    }

    /// What the status file says, without what only the shell can measure (memory, descriptors).
    public func status() -> KioskStatus {
        var s = model.map { KioskStatus(values: $0.values()) } ?? KioskStatus()
        s.instrumentID = currentID
        if model?.instrument.relativeOnly == true {
            // `show = percent`: the status file (and the bridge reading it) carries no money either.
            s.price = nil
            s.change = nil
            s.baseline = nil
            s.lastPrice = nil
            s.previousClose = nil
            s.dayChange = nil
        }
        if model?.placeholder == nil, !showingSample {
            s.sessionState = header.marketNote?.state
            s.asOf = header.marketNote?.asOf
        }
        s.instrumentName = model?.instrument.name ?? (showingSample ? "\(SampleMarket.symbol) · \(SampleMarket.name)"
            : entries.isEmpty ? nil : entries[instrumentIndex % entries.count].spec.name ?? currentID)
        s.displayDetail = displayDetail
        s.animating = model?.isAnimating(at: now.mono) ?? false
        // The reason the screen gives: why it waits, else why the prices are not fresh. In English
        // whatever the locale: scripts and monitoring match it (the screen's own words are `note`
        // and `waiting_for`).
        if let entry = showingSample || entries.isEmpty ? nil : entries[instrumentIndex % entries.count] {
            s.problem = entry.zone == nil || !entry.hasData ? placeholderText(for: entry, phrases: .english) : header.marketNote?.problem
        }
        s.stale = isStale
        s.display = displayStatus
        s.frames = stats.presentedFrames
        s.settledFrame = settledFrame
        s.missedVblanks = stats.missedVblanks
        s.inputToFlipP50 = stats.inputLatencyPercentile(0.5)
        s.inputToFlipP99 = stats.inputLatencyPercentile(0.99)
        s.renderP50 = stats.renderPercentile(0.5)
        s.renderP99 = stats.renderPercentile(0.99)
        s.copyP50 = stats.copyPercentile(0.5)
        s.copyP99 = stats.copyPercentile(0.99)
        s.scanoutBytesPerFrame = stats.meanCopiedBytes
        s.scanoutCopyFraction = stats.meanCopyFraction
        s.burnInShift = burnInMethod
        s.rotation = displayInfo == nil ? nil : rotationMethod
        s.level = lightLevel
        s.lux = power.lux
        s.brightnessMeans = brightnessMeans
        s.problems = problems
        s.alerts = activeAlerts
        s.alertFirings = alertFirings
        s.time = now.wall
        s.paused = round.isPaused
        s.screenControl = screenControl.rawValue
        s.message = banner.message
        s.cec = cec.status
        s.outputs = outputsStatus
        if showingWatchlist, let watchlist {
            // The overview: no one instrument's numbers.
            var w = KioskStatus()
            w.scene = .watchlist
            w.range = watchlist.range.rawValue
            w.stale = watchlist.tileContents.contains { $0.isStale }
            w.display = s.display
            w.frames = s.frames
            w.settledFrame = s.settledFrame
            w.missedVblanks = s.missedVblanks
            w.inputToFlipP50 = s.inputToFlipP50
            w.inputToFlipP99 = s.inputToFlipP99
            w.renderP50 = s.renderP50
            w.renderP99 = s.renderP99
            w.copyP50 = s.copyP50
            w.copyP99 = s.copyP99
            w.problems = s.problems
            w.time = s.time
            w.paused = s.paused
            w.screenControl = s.screenControl
            w.message = s.message
            w.cec = s.cec
            w.level = s.level
            w.lux = s.lux
            w.brightnessMeans = s.brightnessMeans
            w.alerts = s.alerts
            w.alertFirings = s.alertFirings
            w.outputs = s.outputs
            return w
        }
        return s
    }

    /// One line per `[output]` section (none without sections): what each output's machines say;
    /// the shell adds the connector and mode its display reports.
    var outputsStatus: [KioskStatus.Output] {
        let sections = setup.config.effectiveOutputs
        guard !setup.config.outputs.isEmpty else { return [] }
        var lines: [KioskStatus.Output] = []
        for i in screens.indices where sections.indices.contains(i) {
            on(i) {
                let state = displayStatus == DisplayState.presenting.rawValue ? "running" : displayStatus
                lines.append(KioskStatus.Output(name: sections[i].name.description, connector: nil, mode: nil, scene: sections[i].scene,
                                                state: state, flips: stats.completedFlips, missedVblanks: stats.missedVblanks))
            }
        }
        return lines
    }

    /// Asks the status file's schedule after every event whether to write; the status is built
    /// only when it may be written.
    func scheduleStatus() {
        // A frame being presented is counted first: the file says what is on the glass.
        let action = statusSchedule?.look(at: now.mono, framePending: screens.contains { $0.frames.awaitingReport }) { status() }
        if case .write(let written) = action {
            emit(.writeStatus(StatusWrite(status: written, instruments: instrumentHealth(), alertStates: alertStates)))
        }
    }
}
