import DisplayModel

// Where the outputs after the first come from. The first output's display answers with its card:
// KMS surveys its connectors (and those of the other KMS cards, each its own master) and opens a
// connector on the first output's descriptor; headless answers with one simulated screen for each
// output asked for; fbdev has one screen and no card. The shell asks the card and never needs to
// know which kind of display it holds.

/// One output a card can drive, as the daemon's output assignment sees it.
public struct ConnectorSurvey: Sendable, Equatable {
    /// The connector's name ("HDMI-A-1"; "card1-DSI-1" for another card's on a name clash).
    public var name: String
    public var connected: Bool
    /// Preferred first, as the kernel lists them.
    public var modes: [ModeRequest]
    public var panelQuarterTurns: Int

    public init(name: String, connected: Bool, modes: [ModeRequest], panelQuarterTurns: Int = 0) {
        self.name = name
        self.connected = connected
        self.modes = modes
        self.panelQuarterTurns = panelQuarterTurns
    }
}

/// What the daemon asks of a card for the outputs after the first.
public struct CardRequest: Sendable {
    /// The connector names the outputs ask for, in order (simulated cards call theirs so; a
    /// real card has its own names).
    public var names: [String]
    /// Burn-in margin of each output's buffers, and the largest mode taken (`[display]`).
    public var shiftMargin: Int
    public var maxSize: ModeRequest?
    /// Whether the other KMS cards' connectors count too (false when `[display] device` names one).
    public var otherCards: Bool

    public init(names: [String], shiftMargin: Int = 0, maxSize: ModeRequest? = nil, otherCards: Bool = true) {
        self.names = names
        self.shiftMargin = shiftMargin
        self.maxSize = maxSize
        self.otherCards = otherCards
    }
}

/// The outputs a display's card offers, and a way to open each.
public protocol DisplayCard: AnyObject {
    /// Every output, in the card's order (another card's after the first's).
    func survey() -> [ConnectorSurvey]
    /// Opens the output the survey called `connector` (nil: the first free connected one, once
    /// one is plugged in), logging through `log`.
    func open(connector: String?, log: @escaping (String) -> Void) throws(DisplayError) -> any Display
    /// The survey's name of the connector `display` drives now; nil while it drives none.
    func surveyName(of display: any Display) -> String?
}

extension DisplayCard {
    public func surveyName(of display: any Display) -> String? { display.connectorReport?.connector }
}

/// What a display that drives a connector says of it (the status file's `outputs`, the
/// backlight's lookup, touch mapping by connector, display-check); nil for the others.
public struct ConnectorReport: Sendable, Equatable {
    /// The card, e.g. `/dev/dri/card0`.
    public var devicePath: String
    /// The connector driven now; nil while it waits for a free one to be plugged in.
    public var connector: String?
    /// `WxH@Hz` of the mode in use.
    public var mode: String
    /// `running`, or `waiting: ` and why.
    public var state: String
    public var flips: Int
    public var missedVblanks: Int
    /// The framebuffer the CRTC scans out now (display-check reads it after giving the screen back).
    public var crtcFramebufferID: UInt32?

    /// The card's file name, `card0`.
    public var cardName: String { String(devicePath.split(separator: "/").last ?? "card0") }
}

/// Screens of their own for the outputs after the first, each the first one's size and refresh:
/// several outputs run (and are tested) without a card.
public final class SimulatedCard: DisplayCard {
    private let names: [String]
    private let width: Int, height: Int, refreshHz: Double

    public init(names: [String], width: Int, height: Int, refreshHz: Double) {
        self.names = names
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
    }

    public func survey() -> [ConnectorSurvey] {
        names.map { ConnectorSurvey(name: $0, connected: true, modes: [ModeRequest(width: width, height: height)]) }
    }

    public func open(connector: String?, log: @escaping (String) -> Void) throws(DisplayError) -> any Display {
        HeadlessDisplay(width: width, height: height, refreshHz: refreshHz, simulatedVsync: true)
    }

    public func surveyName(of display: any Display) -> String? { nil }
}

/// A card whose outputs a caller opens (the tests' displays): the survey says the names asked
/// for, each opened by its index among them.
public final class OpenerCard: DisplayCard {
    public typealias Opener = (Int) throws(DisplayError) -> any Display
    private let names: [String]
    private let size: ModeRequest
    private let opener: Opener

    public init(names: [String], size: ModeRequest, opener: @escaping Opener) {
        self.names = names
        self.size = size
        self.opener = opener
    }

    public func survey() -> [ConnectorSurvey] {
        names.map { ConnectorSurvey(name: $0, connected: true, modes: [size]) }
    }

    public func open(connector: String?, log: @escaping (String) -> Void) throws(DisplayError) -> any Display {
        try opener(connector.flatMap { names.firstIndex(of: $0) } ?? 0)
    }

    public func surveyName(of display: any Display) -> String? { nil }
}
