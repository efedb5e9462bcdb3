// TileBoard: the order of the watchlist's tiles and of the tape's items (movers first, decided at
// most once a minute each), the tape's words as the last frame was given them, and when the tiles
// look at the clock again. A value the core owns; it never builds a tile or reads a series: the
// core hands it the day's moves and the words, it answers with orders, revisions and deadlines.

import Chart

struct TileBoard {
    /// The tape's words against the data under them.
    enum State: Equatable {
        /// The data changed (a series, a fetch status, the clock, a standing order's minute):
        /// the next frame works the words out again.
        case stale
        /// The words of `tapeRevision` are the data's.
        case current
    }
    private(set) var state = State.stale
    /// Movers first: the tiles' and the tape's orders (config indices).
    private var tileMovers = MoverOrder()
    private var tapeMovers = MoverOrder()
    /// Position k of the overview shows entry `tileOrder[k]`.
    private(set) var tileOrder: [Int] = []
    /// When a standing order may change (its minute is up and the moves changed): look again then.
    private(set) var moversDue: Double?
    /// The tape's words as last given to a frame, and their revision (the shell lays them out once each).
    private(set) var tapeItems: [TapeItem] = []
    private(set) var tapeRevision = 0
    /// The frame time of the last words that changed a price on the tape: the shell lights that
    /// item for `TapeFlash.duration` (`TapeRenderer.setItems`), and no frame is settled meanwhile.
    private(set) var tapePriceChangedAt: Double?
    /// When the tiles last looked at the clock (their staleness and marks), wall seconds, and when
    /// a tile's market status next changes (Unix seconds).
    private var refreshedAt = -Double.infinity
    private(set) var nextChange: Int64?

    /// Something under the tape's words changed.
    mutating func dataChanged() { state = .stale }

    /// Which of the two orders a list of moves is sorted for.
    enum Order { case tiles, tape }

    /// The config indices of `moves` (one per instrument, config order) in the order `sort` gives
    /// now; arms a look again when the moves changed inside a standing order's minute. The tiles'
    /// order is kept: a tap on position k opens `tileOrder[k]`.
    mutating func order(_ which: Order, sort: MoveSort, moves: [Double?], now: Double) -> [Int] {
        let order: [Int]
        let due: Double?
        switch which {
        case .tiles:
            order = tileMovers.order(sort: sort, moves: moves, now: now)
            due = tileMovers.recheckDue(moves: moves)
        case .tape:
            order = tapeMovers.order(sort: sort, moves: moves, now: now)
            due = tapeMovers.recheckDue(moves: moves)
        }
        if let due { moversDue = min(moversDue ?? due, due) }
        return order
    }

    /// Lays the tiles out in `order` (from `order(.tiles, …)`).
    mutating func placeTiles(_ order: [Int]) { tileOrder = order }

    /// The position of entry `index` among the tiles.
    func position(ofTile index: Int) -> Int { tileOrder.firstIndex(of: index) ?? index }

    /// The entry shown at position `k` of the overview.
    func tile(at k: Int) -> Int { k < tileOrder.count ? tileOrder[k] : k }

    /// Tile `index`'s day move is now `move` (sorted by moves): its first price places it at once,
    /// another waits for its order's minute.
    mutating func tileMoved(_ index: Int, move: Double?, now: Double) {
        if tileMovers.fallsAtOnce(index: index, move: move) {
            moversDue = now
        } else if let due = tileMovers.standsUntil {
            moversDue = min(moversDue ?? due, due)
        }
    }

    /// The movers' look is due at `now`: the tape's words are worked out again; true when the core
    /// should see whether the tiles' order changed.
    mutating func moversTimer(at now: Double) -> Bool {
        guard let due = moversDue, due <= now else { return false }
        moversDue = nil
        state = .stale
        return true
    }

    /// The tape's words for the frame at `time`. `fresh` is the data's words, worked out by the
    /// core only while `state` is stale (the board cannot ask for them: working them out orders
    /// the tape, which is the board's to change); words that differ make a new revision (a price
    /// changed in place lights it).
    mutating func tapeWords(at time: Double, fresh: [TapeItem]?) -> (items: [TapeItem], revision: Int) {
        if state == .stale, let items = fresh {
            state = .current
            if items != tapeItems {
                // The shell's rule for a flash: the same item in the same place at another price.
                if zip(tapeItems, items).contains(where: { $0.name == $1.name && $0.price != $1.price }) {
                    tapePriceChangedAt = time
                }
                tapeItems = items
                tapeRevision += 1
            }
        }
        return (tapeItems, tapeRevision)
    }

    /// Whether the tiles should look at the clock at wall time `wall`: a minute since they last
    /// did (a finger's every move need not recompute twelve instruments), or a market changed.
    func tilesDue(wall: Double) -> Bool {
        wall - refreshedAt >= 60 || nextChange.map { Double($0) <= wall } == true
    }

    /// The tiles looked at the clock at `wall` (nil: they were laid out, not refreshed); their
    /// markets next change at `nextChange`.
    mutating func tilesLooked(at wall: Double?, nextChange: Int64?) {
        if let wall { refreshedAt = wall }
        self.nextChange = nextChange
    }

    /// The wall clock was set: the tiles look again at once.
    mutating func clockStepped() { refreshedAt = -.infinity }
}
