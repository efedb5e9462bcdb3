// Which of a connector's modes `mode = auto` drives, and at what rate frames are paced: pure
// decisions on the numbers a driver reports, tested with the drivers' own numbers.

/// One mode as a connector offers it.
public struct OfferedMode: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var refreshHz: Double
    public var isPreferred: Bool

    public init(width: Int, height: Int, refreshHz: Double, isPreferred: Bool = false) {
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
        self.isPreferred = isPreferred
    }
}

public enum ModePolicy {
    /// `mode = auto` drives nothing larger than this: a Pi on a 4K TV would otherwise draw
    /// 3840x2160 at 30 Hz (and Debian 13's 64 MB CMA pool cannot hold two such buffers).
    public static let defaultMaxSize = ModeRequest(width: 1920, height: 1080)

    /// No display refreshes below this: a slower rate says the mode has no real timings.
    public static let slowestRealRate = 10.0

    /// The rate to pace at and whether the mode's timings are real. tinydrm's SPI panels
    /// (ili9341, ili9486, hx8357d, st7735r) declare `DRM_SIMPLE_MODE`: a 1 kHz pixel clock "to pass
    /// validation" (include/drm/drm_modes.h), so 480x320 computes to 0.0065 Hz. Such a rate is
    /// unknown: frames are paced by the commit's completion, at 60 Hz at most (the SPI transfer is
    /// the real limit), and the measured rate is reported.
    public static func pacingRate(timingsHz: Double) -> (hz: Double, known: Bool) {
        guard timingsHz.isFinite, timingsHz >= slowestRealRate else { return (60, false) }
        return (timingsHz, true)
    }

    /// The mode `auto` takes: the preferred mode when it fits `maxSize` (either way round, for a
    /// panel mounted on its side), at the highest refresh of that size; else the largest mode that
    /// fits, at its highest refresh; else (nothing fits, or no limit) the preferred mode. Returns
    /// an index into `modes`, nil only when there are none.
    public static func autoMode(_ modes: [OfferedMode], maxSize: ModeRequest?) -> Int? {
        guard !modes.isEmpty else { return nil }
        let preferred = modes.firstIndex(where: \.isPreferred) ?? 0
        guard let limit = maxSize else { return preferred }
        func fits(_ m: OfferedMode) -> Bool {
            (m.width <= limit.width && m.height <= limit.height) || (m.width <= limit.height && m.height <= limit.width)
        }
        func fastest(width: Int, height: Int) -> Int? {
            modes.indices.filter { modes[$0].width == width && modes[$0].height == height && fits(modes[$0]) }
                .max { modes[$0].refreshHz < modes[$1].refreshHz }
        }
        let p = modes[preferred]
        if fits(p), let i = fastest(width: p.width, height: p.height) { return i }
        let fitting = modes.indices.filter { fits(modes[$0]) }
        guard let largest = fitting.max(by: { a, b in
            let (x, y) = (modes[a], modes[b])
            return x.width * x.height != y.width * y.height ? x.width * x.height < y.width * y.height : x.refreshHz < y.refreshHz
        }) else { return preferred }
        return fastest(width: modes[largest].width, height: modes[largest].height) ?? largest
    }

    /// The modes to fall back to when buffers of `modes[current]` cannot be made: every smaller
    /// mode, largest first (each size once, at its highest refresh).
    public static func smallerModes(_ modes: [OfferedMode], than current: Int) -> [Int] {
        let c = modes[current]
        var seen: Set<Int> = []
        return modes.indices
            .filter { modes[$0].width * modes[$0].height < c.width * c.height }
            .sorted { a, b in
                let (x, y) = (modes[a], modes[b])
                return x.width * x.height != y.width * y.height ? x.width * x.height > y.width * y.height : x.refreshHz > y.refreshHz
            }
            .filter { seen.insert(modes[$0].width << 20 | modes[$0].height).inserted }
    }
}

/// What to try when scanout buffers cannot be made (a Pi's CMA pool is 64 MB on Debian 13's
/// device tree, and the console's framebuffer already holds part of it): two buffers of the mode,
/// else the one that was made (drawn into while on screen: it may tear), else two of the next
/// smaller mode, and so on. Pure: the shell makes the buffers and says how many it got.
public struct BufferFallback: Sendable, Equatable {
    public enum Step: Equatable, Sendable {
        /// Make `buffers` buffers of `modes[mode]`.
        case make(mode: Int, buffers: Int)
        /// Use what was made: `buffers` of `modes[mode]`.
        case use(mode: Int, buffers: Int)
        /// No mode can be shown.
        case giveUp
    }

    public let modes: [OfferedMode]
    public private(set) var step: Step
    private var smaller: [Int]

    public init(modes: [OfferedMode], start: Int) {
        self.modes = modes
        step = .make(mode: start, buffers: 2)
        smaller = ModePolicy.smallerModes(modes, than: start)
    }

    /// The buffers of the current step: `made` of them were made before one failed (or all).
    public mutating func made(_ made: Int) -> Step {
        guard case .make(let mode, let wanted) = step else { return step }
        if made >= wanted || made >= 1 {
            step = .use(mode: mode, buffers: min(made, wanted))
        } else if !smaller.isEmpty {
            step = .make(mode: smaller.removeFirst(), buffers: 2)
        } else {
            step = .giveUp
        }
        return step
    }
}
