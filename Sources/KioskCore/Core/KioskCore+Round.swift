// KioskCore: The unattended show: the round's actions carried out on the model.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Cycling

    func armCycle(from t: Double) {
        round.arm(at: t, showing: model?.range)
    }

    /// What the round reads of the screen when its step is due.
    var roundScreen: Round.Screen {
        let chart = model.map { model in
            Round.ChartView(range: model.range, ranges: shownRanges.isEmpty ? config.ranges : shownRanges,
                            showsBars: model.scene == .bars, scrubbing: model.scrubIndex != nil,
                            placeholder: model.placeholder != nil)
        }
        return Round.Screen(instruments: roundCount, hasOverview: watchlist != nil, chart: chart)
    }

    /// Instruments in the round: the sample market is one.
    var roundCount: Int { showingSample ? 1 : entries.count }

    /// Carries out what the round answered: the model is the core's, the round only names what it shows.
    func perform(_ actions: [Round.Action]) {
        for action in actions { perform(action) }
    }

    func perform(_ action: Round.Action) {
        switch action {
        case .select(let range):
            model?.select(range, at: frameTime())
            needs.insert(.picture)
        case .showBars:
            model?.show(.bars, at: frameTime())
            needs.insert(.picture)
        case .open(let range):
            rebuildModel(range: range)
            model?.show(.drawIn, at: frameTime())
            repaintWhole()
        case .step(let range):
            rebuildModel(range: range)
            model?.show(.drawIn, at: frameTime())
            // The range it gave way to, when it cannot draw the first, is the one its round has shown.
            if let model { round.shown(model.range) }
            needs.insert(.picture)
        case .showOverview:
            if model?.scrubIndex != nil { model?.endScrub() }
            refreshTiles()
            repaintWhole()
        }
    }
}
